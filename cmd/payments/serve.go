package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"time"

	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/trace"

	"payments/dispatcher"
	"payments/dispatcher/mailer"
	"payments/dispatcher/maintenance"
	"payments/dispatcher/pspcalls"
	"payments/dispatcher/reports"
	"payments/metrics"
	"payments/pix"
	"payments/pix/apipix"
	"payments/store"
	"payments/tracing"
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
	var pspClient *apipix.Client
	if cfg.PSP.on() {
		var err error
		if pspClient, err = cfg.PSP.client(); err != nil {
			return err
		}
		log.Info("live mode on", "psp", cfg.PSP.BaseURL, "callbacks_mtls", cfg.PSP.CallbackCAFile != "", "callbacks_token", cfg.PSP.CallbackToken != "")
		if cfg.PSP.CallbackCAFile == "" && cfg.PSP.CallbackToken == "" {
			log.Warn("no PSP callbacks can be authenticated (set PSP_CALLBACK_TOKEN, or TLS_CERT_FILE, TLS_KEY_FILE and PSP_CALLBACK_CA_FILE): live credits wait for the reconciler")
		}
	} else {
		log.Info("live mode off: PSP_BASE_URL is not set; live keys cannot move money")
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
	var replica *store.Replica
	if cfg.ReplicaURL != "" {
		rdb, err := store.OpenReplica(cfg.ReplicaURL, cfg.DBMaxConns)
		if err != nil {
			return fmt.Errorf("REPLICA_DATABASE_URL: %w", err)
		}
		defer rdb.Close()
		replica = store.NewReplica(db, rdb, store.ReplicaConfig{MaxLag: cfg.ReplicaMaxLag}, log)
		replica.Start(context.Background())
		defer replica.Stop()
		lag, used := replica.Lag()
		log.Info("replica configured", "used", used, "lag_ms", lag.Milliseconds(), "max_lag_ms", cfg.ReplicaMaxLag.Milliseconds())
	}
	st, err := store.New(db, store.Options{SecretKey: cfg.SecretKey, Charges: store.Charges{
		Receiver: pix.Receiver{Key: cfg.PixKey, City: cfg.PixCity}, BaseURL: cfg.BaseURL,
	}, Replica: replica})
	if err != nil {
		return err
	}
	role := "all"
	switch {
	case *webRole && !*workerRole:
		role = "web"
	case *workerRole && !*webRole:
		role = "dispatcher"
	}
	tp, flushTraces, err := tracing.Setup(ctx, cfg.Tracing, role)
	if err != nil {
		return err
	}
	defer func() {
		flushCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = flushTraces(flushCtx)
	}()
	var tracer trace.Tracer
	if cfg.Tracing.Endpoint != "" {
		tracer = tp.Tracer(tracing.Name)
		log.Info("traces on: OTLP/HTTP", "endpoint", cfg.Tracing.Endpoint)
	}
	meters := metrics.New(db.DB, web.QueueReader(st))
	if cfg.MetricsAddr != "" {
		go serveMetrics(ctx, cfg.MetricsAddr, meters, log)
	}
	disp := dispatcher.New(dispatcher.Config{
		Workers: cfg.DispatcherWorkers, PerWebhook: cfg.DispatcherPerWebhook, Lease: cfg.DispatcherLease,
		DrainTimeout: cfg.ShutdownTimeout, AllowPrivateNetworks: cfg.WebhookAllowPrivateNetworks,
		Proxy: cfg.WebhookProxy, ClientCertificate: cfg.WebhookClientCert,
		DatabaseURL: cfg.DatabaseURL, Metrics: meters, Tracer: tracer,
	}, st, log)

	var rdb *redis.Client
	if cfg.RedisURL != "" {
		if rdb, err = web.OpenRedis(ctx, cfg.RedisURL); err != nil {
			return err
		}
		defer rdb.Close()
	}

	// The background workers, each a service with Start and Stop. They stop
	// after the web server (deferred calls run last first): the requests in
	// flight finish first, then the PSP worker's calls, then the webhook
	// attempts, then the maintenance jobs; none leaves a goroutine behind.
	if *workerRole {
		jobs := maintenance.New(maintenance.Config{
			ExpiryInterval: cfg.ExpiryInterval, PruneInterval: 5 * time.Minute, RollupInterval: time.Second, AttemptRetention: cfg.AttemptRetention,
			EventRetention: cfg.EventRetention,
		}, st, log)
		jobs.Start(context.Background())
		defer jobs.Stop()
		disp.Start(context.Background())
		defer disp.Stop()
		builder := reports.New(reports.Config{}, st, log)
		builder.Start(context.Background())
		defer builder.Stop()
		if cfg.SMTPURL != "" {
			mail, err := mailer.New(mailer.Config{URL: cfg.SMTPURL, From: cfg.MailFrom}, st, log)
			if err != nil {
				return err
			}
			mail.Start()
			defer mail.Stop()
		} else {
			log.Warn("SMTP_URL is not set: e-mails (verification, password resets, invitations, notices) stay queued until it is")
		}
		if pspClient != nil {
			worker := pspcalls.New(pspcalls.Config{
				Key: cfg.PixKey, Account: cfg.PSP.Account, Workers: cfg.PSP.Workers, Lease: cfg.PSP.Lease, ReconcileInterval: cfg.PSP.ReconcileInterval,
				DatabaseURL: cfg.DatabaseURL, Metrics: meters,
			}, st, pspClient, log)
			worker.Start(context.Background())
			defer worker.Stop()
		}
	}

	if !*webRole {
		log.Info("dispatcher and background jobs running")
		<-ctx.Done()
		log.Info("shutting down")
		return nil
	}

	// Keys' "last used" is written every few seconds, and at shutdown.
	usage := web.NewKeyUsage(st, log, 0)
	usage.Start()
	defer usage.Stop()
	replicaLag := time.Duration(0)
	if replica != nil {
		replicaLag = cfg.ReplicaMaxLag
	}
	app := web.New(web.Config{
		BaseURL:              cfg.BaseURL,
		ReplicaMaxLag:        replicaLag,
		RateLimitLive:        cfg.RateLimitLive,
		RateLimitTest:        cfg.RateLimitTest,
		DeviceKey:            web.DeviceKey(cfg.SecretKey),
		StreamsPerKey:        cfg.StreamsPerKey,
		StreamsPerAccount:    cfg.StreamsPerAccount,
		APIKeyCacheTTL:       cfg.APIKeyCacheTTL,
		AllowPrivateNetworks: cfg.WebhookAllowPrivateNetworks,
		PSPToken:             cfg.PSPToken,
		LiveMode:             pspClient != nil,
		ChargeWait:           cfg.PSP.ChargeWait,
		CallbackMTLS:         cfg.PSP.CallbackCAFile != "",
		CallbackToken:        cfg.PSP.CallbackToken,
		SandboxPayerURL:      cfg.PSP.SandboxPayerURL,
		PixReceiverName:      cfg.PixReceiverName,
		MetricsToken:         cfg.MetricsToken,
		TrustedProxies:       cfg.TrustedProxies,
		SessionIdle:          cfg.SessionIdle,
		SessionMaxAge:        cfg.SessionMaxAge,
	}, web.Deps{Store: st, Log: log, AccessLog: accessLog, Redis: rdb, Tester: disp, Closing: ctx.Done(), Metrics: meters, Tracer: tracer, KeyUsage: usage})
	ln, err := net.Listen("tcp", cfg.ListenAddr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.ListenAddr, err)
	}
	if cfg.PSP.TLSCertFile != "" {
		tlsConfig, err := web.ServerTLS(cfg.PSP.TLSCertFile, cfg.PSP.TLSKeyFile, cfg.PSP.CallbackCAFile)
		if err != nil {
			_ = ln.Close()
			return err
		}
		ln = tls.NewListener(ln, tlsConfig)
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- app.Listener(ln) }()
	log.Info("listening", "addr", ln.Addr().String(), "base_url", cfg.BaseURL, "redis", rdb != nil, "tls", cfg.PSP.TLSCertFile != "")

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
