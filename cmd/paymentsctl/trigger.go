package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// triggerable are the events trigger can make the service emit.
var triggerable = []string{"payment.created", "payment.paid", "payment.expired", "payment.canceled", "payment.refunded",
	"refund.succeeded", "refund.failed", "dispute.opened", "dispute.won", "dispute.lost", "withdrawal.completed", "withdrawal.failed"}

// object is the little trigger reads of what the API answers.
type object struct {
	ID     string `json:"id"`
	Status string `json:"status"`
}

// trigger creates and moves test-mode objects through the API until the
// service emits the event asked for (and the ones on the way to it).
func trigger(ctx context.Context, args []string, out io.Writer, getenv func(string) string) error {
	fs := flag.NewFlagSet("trigger", flag.ContinueOnError)
	conn := connectionFlags(fs, getenv)
	positional, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(positional) != 1 || !slices.Contains(triggerable, positional[0]) {
		return fmt.Errorf("%w: trigger takes one event type: %s", errUsage, strings.Join(triggerable, ", "))
	}
	event := positional[0]
	c, err := conn.client()
	if err != nil {
		return err
	}
	if !strings.HasPrefix(c.key, "sk_test_") {
		return fmt.Errorf("%w: trigger works in test mode only: use a test key (sk_test_...)", errUsage)
	}
	step := func(what, method, path string, body any) (object, error) {
		var o object
		if err := c.do(ctx, method, path, body, &o); err != nil {
			return o, fmt.Errorf("%s: %w", what, err)
		}
		fmt.Fprintf(out, "  %-28s %s %s\n", what, o.ID, o.Status)
		return o, nil
	}
	amount := 10_000
	if strings.HasPrefix(event, "withdrawal.") {
		amount = 20_000 // leaves an available balance to withdraw from
	}
	fmt.Fprintf(out, "Triggering %s:\n", event)
	p, err := step("payment created", "POST", "/api/v1/payments", map[string]any{
		"amount_cents": amount, "description": "paymentsctl trigger " + event, "metadata": map[string]string{"trigger": event}})
	if err != nil || event == "payment.created" {
		return err
	}
	pay := func() error {
		_, err := step("payment paid", "POST", "/api/v1/test_helpers/payments/"+p.ID+"/pay", nil)
		return err
	}
	switch event {
	case "payment.expired":
		_, err = step("payment expired", "POST", "/api/v1/test_helpers/payments/"+p.ID+"/expire", nil)
	case "payment.canceled":
		_, err = step("payment canceled", "DELETE", "/api/v1/payments/"+p.ID, nil)
	case "payment.paid":
		err = pay()
	case "payment.refunded":
		if err = pay(); err == nil {
			_, err = step("payment refunded", "POST", "/api/v1/payments/"+p.ID+"/refund", nil)
		}
	case "refund.succeeded", "refund.failed":
		if err = pay(); err != nil {
			return err
		}
		re, err := step("refund created", "POST", "/api/v1/refunds", map[string]any{"payment": p.ID, "amount_cents": amount / 2})
		if err != nil {
			return err
		}
		end := strings.TrimPrefix(event, "refund.")
		if end == "succeeded" {
			end = "succeed"
		} else {
			end = "fail"
		}
		_, err = step("refund "+strings.TrimPrefix(event, "refund."), "POST", "/api/v1/test_helpers/refunds/"+re.ID+"/"+end, nil)
		return err
	case "dispute.opened", "dispute.won", "dispute.lost":
		if err = pay(); err != nil {
			return err
		}
		d, err := step("dispute opened", "POST", "/api/v1/test_helpers/payments/"+p.ID+"/dispute", nil)
		if err != nil || event == "dispute.opened" {
			return err
		}
		_, err = step(event, "POST", "/api/v1/test_helpers/disputes/"+d.ID+"/"+map[string]string{"dispute.won": "win", "dispute.lost": "lose"}[event], nil)
		return err
	case "withdrawal.completed", "withdrawal.failed":
		if err = pay(); err != nil {
			return err
		}
		w, err := step("withdrawal created", "POST", "/api/v1/withdrawals", map[string]any{
			"amount_cents": 1_000, "pix_key": "financeiro@example.com", "description": "paymentsctl trigger"})
		if err != nil {
			return err
		}
		end := map[string]string{"withdrawal.completed": "complete", "withdrawal.failed": "fail"}[event]
		_, err = step(event, "POST", "/api/v1/test_helpers/withdrawals/"+w.ID+"/"+end, nil)
		return err
	}
	return err
}
