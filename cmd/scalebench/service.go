package main

import "payments/internal/benchserve"

// startService runs the binary on the loaded database: nothing to sweep or
// deliver while requests are timed (the history is loaded, not lived), and
// the whole history kept (the default prunes past 30 days).
func startService(binary, dbURL string) (*benchserve.Service, error) {
	return benchserve.Start(binary, dbURL, "payments-scale-*.log",
		"EXPIRY_SWEEP_INTERVAL=1h", "EVENT_RETENTION=2400h", "ATTEMPT_RETENTION=2400h")
}
