package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"time"
)

func eventsCommand(ctx context.Context, args []string, out io.Writer, getenv func(string) string) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: events list | events resend <evt_...>", errUsage)
	}
	switch args[0] {
	case "list":
		return eventsList(ctx, args[1:], out, getenv)
	case "resend":
		return eventsResend(ctx, args[1:], out, getenv)
	}
	return fmt.Errorf("%w: unknown events command %q (list, resend)", errUsage, args[0])
}

type eventSummary struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	CreatedAt string `json:"created_at"`
	Data      struct {
		Object struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"object"`
	} `json:"data"`
}

func eventsList(ctx context.Context, args []string, out io.Writer, getenv func(string) string) error {
	fs := flag.NewFlagSet("events list", flag.ContinueOnError)
	conn := connectionFlags(fs, getenv)
	types := fs.String("type", "", "event types, comma-separated")
	limit := fs.Int("limit", 10, "how many (1 to 100)")
	success := fs.String("delivery-success", "", "false: events some webhook has not acknowledged; true: all acknowledged")
	since := fs.Duration("since", 0, "only events of the last duration, e.g. 2h")
	asJSON := fs.Bool("json", false, "print the API's answer")
	if _, err := parseArgs(fs, args); err != nil {
		return err
	}
	c, err := conn.client()
	if err != nil {
		return err
	}
	q := url.Values{"limit": {strconv.Itoa(*limit)}}
	if *types != "" {
		q.Set("type", *types)
	}
	if *success != "" {
		q.Set("delivery_success", *success)
	}
	if *since > 0 {
		q.Set("created[gte]", strconv.FormatInt(time.Now().Add(-*since).Unix(), 10))
	}
	var raw json.RawMessage
	if err := c.do(ctx, "GET", "/api/v1/events?"+q.Encode(), nil, &raw); err != nil {
		return err
	}
	if *asJSON {
		return printJSON(out, raw)
	}
	var page struct {
		HasMore bool           `json:"has_more"`
		Data    []eventSummary `json:"data"`
	}
	if err := json.Unmarshal(raw, &page); err != nil {
		return err
	}
	if len(page.Data) == 0 {
		fmt.Fprintln(out, "No events.")
	}
	for _, e := range page.Data {
		fmt.Fprintf(out, "%s  %-22s %s  %s %s\n", e.ID, e.Type, e.CreatedAt, e.Data.Object.ID, e.Data.Object.Status)
	}
	if page.HasMore {
		fmt.Fprintln(out, "(more: raise --limit or narrow with --type/--since)")
	}
	return nil
}

func eventsResend(ctx context.Context, args []string, out io.Writer, getenv func(string) string) error {
	fs := flag.NewFlagSet("events resend", flag.ContinueOnError)
	conn := connectionFlags(fs, getenv)
	webhook := fs.String("webhook", "", "only to this webhook (default: every enabled webhook subscribed to the type)")
	asJSON := fs.Bool("json", false, "print the API's answer")
	positional, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(positional) != 1 {
		return fmt.Errorf("%w: events resend takes one event id (evt_...)", errUsage)
	}
	c, err := conn.client()
	if err != nil {
		return err
	}
	var body any
	if *webhook != "" {
		body = map[string]string{"webhook": *webhook}
	}
	var raw json.RawMessage
	if err := c.do(ctx, "POST", "/api/v1/events/"+url.PathEscape(positional[0])+"/resend", body, &raw); err != nil {
		return err
	}
	if *asJSON {
		return printJSON(out, raw)
	}
	var page struct {
		Data []struct {
			ID        string `json:"id"`
			WebhookID string `json:"webhook_id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &page); err != nil {
		return err
	}
	if len(page.Data) == 0 {
		fmt.Fprintln(out, "No enabled webhook is subscribed to this event's type: nothing queued.")
	}
	for _, d := range page.Data {
		fmt.Fprintf(out, "Queued %s to %s\n", d.ID, d.WebhookID)
	}
	return nil
}
