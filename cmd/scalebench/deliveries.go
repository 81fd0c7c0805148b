package main

import (
	"fmt"
	"os"
	"os/exec"
	"time"
)

// deliveries runs cmd/loadgen's webhook phases on the loaded database: an
// account of its own, its payments paid at 200 a second and their
// deliveries timed end to end, then a backlog of 20,000 drained, all
// written beside the history (its events, deliveries and attempts tables
// and their current month). Its table follows on stdout.
func deliveries(loadgen, binary, adminURL, dbURL string, sz size) error {
	defer elapsed("webhook deliveries", time.Now())
	fmt.Printf("\nWebhook deliveries with %d payments of history (cmd/loadgen -only webhooks on the loaded database):\n\n", sz.Payments)
	cmd := exec.Command(loadgen, "-binary", binary, "-admin-url", adminURL, "-database", dbURL, "-only", "webhooks")
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w", loadgen, err)
	}
	return nil
}
