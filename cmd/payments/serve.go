package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"payments/dispatcher"
	"payments/dispatcher/jobs"
	"payments/pix"
	"payments/store"
	"payments/web"
)

// serve wires config -> db -> migrate -> redis -> web and jobs, and on
// SIGTERM stops accepting, drains HTTP (bounded), stops the jobs and exits.
func serve(ctx context.Context, cfg config, log *slog.Logger, accessLog io.Writer, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	webRole := fs.Bool("web", false, "serve HTTP")
	workerRole := fs.Bool("dispatcher", false, "run background jobs")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if !*webRole && !*workerRole {
		*webRole, *workerRole = true, true
	}
	if cfg.SecretKey == nil {
		return errors.New("SECRET_KEY is required to serve: it seals webhook secrets (generate one with: openssl rand -hex 32)")
	}
	if cfg.WebhookAllowPrivateNetworks {
		log.Warn("WEBHOOK_ALLOW_PRIVATE_NETWORKS is on: webhooks may call private addresses over http; never in production")
	}
	if cfg.PixKey == devPixKey {
		log.Warn("PIX_KEY is not set: BR Codes carry a placeholder key; set PIX_KEY in production")
	}

	if cfg.DebugAddr != "" {
		go servePprof(cfg.DebugAddr, log)
	}
	db, applied, err := openMigrated(ctx, cfg, cfg.DBMaxConns)
	if err != nil {
		return err
	}
	defer db.Close()
	if len(applied) > 0 {
		log.Info("migrations applied", "migrations", applied)
	}
	st, err := store.New(db, store.Options{SecretKey: cfg.SecretKey, Charges: store.Charges{
		Receiver: pix.Receiver{Key: cfg.PixKey, City: cfg.PixCity}, BaseURL: cfg.BaseURL,
	}})
	if err != nil {
		return err
	}
	disp := dispatcher.New(dispatcher.Config{
		Workers: cfg.DispatcherWorkers, PerWebhook: cfg.DispatcherPerWebhook, Lease: cfg.DispatcherLease,
		DrainTimeout: cfg.ShutdownTimeout, AllowPrivateNetworks: cfg.WebhookAllowPrivateNetworks,
		DatabaseURL: cfg.DatabaseURL,
	}, st, log)

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
			jobs.Run(jobsCtx, jobs.Config{
				ExpiryInterval: cfg.ExpiryInterval, PruneInterval: 5 * time.Minute, AttemptRetention: cfg.AttemptRetention,
			}, st, log)
		})
		wg.Go(func() { disp.Run(jobsCtx) })
	}
	defer func() { stopJobs(); wg.Wait() }()

	if !*webRole {
		log.Info("dispatcher and background jobs running")
		<-ctx.Done()
		log.Info("shutting down")
		return nil
	}

	app := web.New(web.Config{
		BaseURL:              cfg.BaseURL,
		RateLimitLive:        cfg.RateLimitLive,
		RateLimitTest:        cfg.RateLimitTest,
		APIKeyCacheTTL:       cfg.APIKeyCacheTTL,
		AllowPrivateNetworks: cfg.WebhookAllowPrivateNetworks,
		PSPToken:             cfg.PSPToken,
	}, web.Deps{Store: st, Log: log, AccessLog: accessLog, Redis: rdb, Tester: disp})
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
