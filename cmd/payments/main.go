// Command payments is the PIX payment service: `serve` runs the API (and the
// background jobs), the other subcommands administer accounts and keys.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"
)

const usage = `usage: payments <command> [flags]

commands:
  serve [--web] [--dispatcher]   serve the API (--web) and run background jobs (--dispatcher); both by default
  migrate                        apply pending database migrations
  accounts create --name N --email E [--password P] [--fee-bps N] [--fee-fixed-cents N]
  accounts activate-live --account ID
                                 turn on the live mode of an account that signed up (audited)
  apikeys create --account ID --mode test|live [--name N] [--permissions payments:read,...] [--allowed-ips IP,CIDR,...]
  apikeys revoke --account ID --key KEY_ID
  refunds create --account ID --payment ID_OR_EXTERNAL_ID [--mode test|live] [--amount-cents N] [--description D]
                                 refund a paid payment (all that is left by default), as the dashboard and the API do
  users create --role support|owner|admin|developer|finance|viewer --email E [--password P] [--account ID]
  demo                           ensure the demo account and print its login and a fresh test key (and live key, in live mode)
  psp register-webhook [--url U] tell the PSP where to post its callbacks (default BASE_URL/psp/webhook[/PSP_CALLBACK_TOKEN])

Configuration comes from the environment; see README.md.`

// defaultGCPercent replaces Go's 100 when GOGC is not set: the service's live
// heap is small (tens of MB), so at 100 it collects very often; 400 halves
// create-payment's p99 under load for about 15 MB more RSS (BENCHMARKS.md).
const defaultGCPercent = 400

// defaultMemoryLimit is the Go runtime's soft memory limit when GOMEMLIMIT
// is not set. At GOGC 400 the heap grows to five times what is live before
// a collection: 12 MB live while the dispatcher drains a backlog made a
// 97 MB process (30 MB of it the binary's own pages). Under this limit it
// collects sooner while the live heap is small, and is at GOGC 400's pace
// again when more is live (the runtime gives collection at most half the
// CPU): the drains kept their rates at 65 MB (BENCHMARKS.md, "Deliveries
// at queue cost").
const defaultMemoryLimit = 28 << 20

// tuneRuntime applies the defaults above where the environment sets none.
func tuneRuntime(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(defaultGCPercent)
	}
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(defaultMemoryLimit)
	}
}

func main() {
	tuneRuntime(os.Getenv)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "payments:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		args = []string{"serve"}
	}
	if args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(stdout, usage)
		return nil
	}
	cfg, err := loadConfig(getenv)
	if err != nil {
		return fmt.Errorf("configuration:\n%w", err)
	}
	logOut := newLogWriter(stderr, 100*time.Millisecond)
	logOut.Start()
	defer logOut.Stop()
	log := slog.New(slog.NewJSONHandler(logOut, &slog.HandlerOptions{Level: cfg.LogLevel}))
	switch args[0] {
	case "serve":
		// Access lines bypass slog (see web.accessLog) but not LOG_LEVEL.
		var accessLog io.Writer
		if log.Enabled(ctx, slog.LevelInfo) {
			accessLog = logOut
		}
		return serve(ctx, cfg, log, accessLog, args[1:])
	case "migrate":
		return migrateCommand(ctx, cfg, stdout)
	case "accounts", "apikeys", "refunds", "users", "demo":
		return admin(ctx, cfg, args, stdout)
	case "psp":
		return pspCommand(ctx, cfg, args, stdout)
	}
	return fmt.Errorf("unknown command %q\n\n%s", args[0], usage)
}
