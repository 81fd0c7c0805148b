package main

import "payments/internal/benchserve"

// startService runs the binary on the loaded database, keeping its history.
func startService(binary, dbURL string) (*benchserve.Service, error) {
	return benchserve.Start(binary, dbURL, "payments-scale-*.log", benchserve.KeepHistory()...)
}
