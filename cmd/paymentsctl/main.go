// Command paymentsctl is the integrator's tool: it talks to the service only
// through its public API, with an API key. listen forwards the account's
// events to a local URL, signed as production deliveries are; trigger makes
// the service really emit an event in test mode; events and payments read
// and resend.
//
// Exit codes: 0 done; 1 the request or the work failed; 2 bad usage or an
// API key the service refused.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

const usage = `paymentsctl: the Payments API from a terminal (test mode for trigger).

Usage:
  paymentsctl listen --forward-to http://localhost:3000/hooks [--events a,b] [--api-version v2|v1] [--from-now]
  paymentsctl trigger <event type>            e.g. payment.paid, refund.succeeded, dispute.lost, withdrawal.failed
  paymentsctl events list [--type a,b] [--limit n] [--delivery-success true|false] [--json]
  paymentsctl events resend <evt_...> [--webhook wh_...] [--json]
  paymentsctl payments get <id or external_id> [--json]

Every command takes --api-key (or PAYMENTS_API_KEY) and --base-url (or
PAYMENTS_BASE_URL, default http://127.0.0.1:8080). No configuration file is
needed; listen keeps its signing secret and its place in the stream under
the user's cache directory.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Getenv)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// errUsage marks a command line that cannot run; exit code 2.
var errUsage = errors.New("usage")

func run(ctx context.Context, args []string, out io.Writer, getenv func(string) string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(out, usage)
		return nil
	}
	switch cmd, rest := args[0], args[1:]; cmd {
	case "listen":
		return listen(ctx, rest, out, getenv)
	case "trigger":
		return trigger(ctx, rest, out, getenv)
	case "events":
		return eventsCommand(ctx, rest, out, getenv)
	case "payments":
		return paymentsCommand(ctx, rest, out, getenv)
	default:
		return fmt.Errorf("%w: unknown command %q (try paymentsctl --help)", errUsage, cmd)
	}
}

func exitCode(err error, stderr io.Writer) int {
	var apiErr *apiError
	switch {
	case err == nil, errors.Is(err, context.Canceled):
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintln(stderr, "paymentsctl:", err)
		return 2
	case errors.As(err, &apiErr) && apiErr.Status == 401:
		fmt.Fprintf(stderr, "paymentsctl: the service refused the API key: %s\nCheck --api-key or PAYMENTS_API_KEY (a test key starts with sk_test_).\n", apiErr.Message)
		return 2
	default:
		fmt.Fprintln(stderr, "paymentsctl:", err)
		return 1
	}
}
