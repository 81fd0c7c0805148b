package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"sync"

	"github.com/redis/go-redis/v9"

	"payments/handlers"
	"payments/jobs"
	"payments/store"
	"payments/web"
)

// serve wires config -> db -> migrate -> redis -> web and jobs, and on
// SIGTERM stops accepting, drains HTTP (bounded), stops the jobs and exits.
func serve(ctx context.Context, cfg config, log *slog.Logger, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	webRole := fs.Bool("web", false, "serve HTTP")
	workerRole := fs.Bool("dispatcher", false, "run background jobs")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if !*webRole && !*workerRole {
		*webRole, *workerRole = true, true
	}
	if cfg.PixKey == devPixKey {
		log.Warn("PIX_KEY is not set: BR Codes carry a placeholder key; set PIX_KEY in production")
	}

	db, err := store.Open(ctx, cfg.DatabaseURL, cfg.DBMaxConns)
	if err != nil {
		return err
	}
	defer db.Close()
	applied, err := store.Migrate(ctx, db)
	if err != nil {
		return err
	}
	if len(applied) > 0 {
		log.Info("migrations applied", "migrations", applied)
	}
	st := store.New(db, nil)

	var rdb *redis.Client
	if cfg.RedisURL != "" {
		if rdb, err = web.OpenRedis(ctx, cfg.RedisURL); err != nil {
			return err
		}
		defer rdb.Close()
	}

	jobsCtx, stopJobs := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	if *workerRole {
		wg.Go(func() {
			jobs.Run(jobsCtx, jobs.Config{ExpiryInterval: cfg.ExpiryInterval, IdempotencyPruneInterval: cfg.ExpiryInterval * 60}, st, log)
		})
	}
	defer func() { stopJobs(); wg.Wait() }()

	if !*webRole {
		log.Info("background jobs running")
		<-ctx.Done()
		log.Info("shutting down")
		return nil
	}

	app := web.New(web.Config{
		BaseURL:       cfg.BaseURL,
		RateLimitLive: cfg.RateLimitLive,
		RateLimitTest: cfg.RateLimitTest,
		Pix:           handlers.PixReceiver{Key: cfg.PixKey, City: cfg.PixCity},
	}, web.Deps{Store: st, Log: log, Redis: rdb})
	ln, err := net.Listen("tcp", cfg.ListenAddr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.ListenAddr, err)
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- app.Listener(ln) }()
	log.Info("listening", "addr", ln.Addr().String(), "base_url", cfg.BaseURL, "redis", rdb != nil)

	select {
	case err := <-serveErr:
		return fmt.Errorf("http server: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down", "timeout", cfg.ShutdownTimeout.String())
	if err := app.ShutdownWithTimeout(cfg.ShutdownTimeout); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("http shutdown: %w", err)
	}
	log.Info("stopped")
	return nil
}
