package main

import (
	"log/slog"
	"net/http"
	"net/http/pprof"
	"time"
)

// servePprof serves the runtime profiles on addr (DEBUG_ADDR), apart from the
// public listener, for `go tool pprof` and `make bench -profile`.
func servePprof(addr string, log *slog.Logger) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	log.Warn("serving profiles", "debug_addr", addr)
	if err := srv.ListenAndServe(); err != nil {
		log.Error("debug listener", "error", err.Error())
	}
}
