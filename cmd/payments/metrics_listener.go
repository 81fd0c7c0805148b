package main

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"payments/metrics"
)

// serveMetrics serves /metrics on addr (METRICS_ADDR), apart from the
// public listener: what a dispatcher-only process (no HTTP otherwise)
// shows Prometheus.
func serveMetrics(ctx context.Context, addr string, m *metrics.Metrics, log *slog.Logger) {
	mux := http.NewServeMux()
	mux.Handle("/metrics", m.Handler())
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	log.Info("serving metrics", "metrics_addr", addr)
	if err := srv.ListenAndServe(); err != nil && err != http.ErrServerClosed {
		log.Error("metrics listener", "error", err.Error())
	}
}
