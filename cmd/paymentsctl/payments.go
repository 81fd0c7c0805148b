package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/url"
)

func paymentsCommand(ctx context.Context, args []string, out io.Writer, getenv func(string) string) error {
	if len(args) == 0 || args[0] != "get" {
		return fmt.Errorf("%w: payments get <id or external_id>", errUsage)
	}
	fs := flag.NewFlagSet("payments get", flag.ContinueOnError)
	conn := connectionFlags(fs, getenv)
	asJSON := fs.Bool("json", false, "print the API's answer")
	positional, err := parseArgs(fs, args[1:])
	if err != nil {
		return err
	}
	if len(positional) != 1 {
		return fmt.Errorf("%w: payments get takes one id or external_id", errUsage)
	}
	c, err := conn.client()
	if err != nil {
		return err
	}
	var raw json.RawMessage
	if err := c.do(ctx, "GET", "/api/v1/payments/"+url.PathEscape(positional[0]), nil, &raw); err != nil {
		return err
	}
	if *asJSON {
		return printJSON(out, raw)
	}
	var p struct {
		ID          string  `json:"id"`
		Status      string  `json:"status"`
		AmountLabel string  `json:"amount_label"`
		ExternalID  *string `json:"external_id"`
		Description *string `json:"description"`
		CreatedAt   string  `json:"created_at"`
		PaidAt      *string `json:"paid_at"`
		CheckoutURL string  `json:"checkout_url"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return err
	}
	line := func(k string, v *string) {
		if v != nil && *v != "" {
			fmt.Fprintf(out, "%-12s %s\n", k, *v)
		}
	}
	line("id", &p.ID)
	line("status", &p.Status)
	line("amount", &p.AmountLabel)
	line("external_id", p.ExternalID)
	line("description", p.Description)
	line("created_at", &p.CreatedAt)
	line("paid_at", p.PaidAt)
	line("checkout", &p.CheckoutURL)
	return nil
}
