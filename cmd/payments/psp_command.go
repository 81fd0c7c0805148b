package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// pspCommand runs `payments psp register-webhook [--url URL]`: it tells the
// PSP where to post its callbacks (API Pix PUT /webhook/{chave}; the PSP
// appends /pix). The default URL is BASE_URL's /psp/webhook, with the path
// token when PSP_CALLBACK_TOKEN is set; Pix Automático's callbacks
// (webhookrec, webhookcobr) are registered at the same address (the PSP
// appends /rec and /cobr). The token is never printed.
func pspCommand(ctx context.Context, cfg config, args []string, stdout io.Writer) error {
	if len(args) < 2 || args[1] != "register-webhook" {
		return fmt.Errorf("usage: payments psp register-webhook [--url URL]\n\n%s", usage)
	}
	fs := flag.NewFlagSet("psp register-webhook", flag.ContinueOnError)
	url := fs.String("url", "", "the callback address the PSP is given (default: BASE_URL/psp/webhook[/PSP_CALLBACK_TOKEN])")
	if err := fs.Parse(args[2:]); err != nil {
		return err
	}
	if !cfg.PSP.on() {
		return errors.New("live mode is off: set PSP_BASE_URL and the PSP's credentials first")
	}
	target := *url
	shown := target
	if target == "" {
		target, shown = cfg.BaseURL+"/psp/webhook", cfg.BaseURL+"/psp/webhook"
		if cfg.PSP.CallbackToken != "" {
			target += "/" + cfg.PSP.CallbackToken
			shown += "/{PSP_CALLBACK_TOKEN}"
		}
	}
	if !strings.HasPrefix(target, "https://") && !strings.HasPrefix(target, "http://") {
		return errors.New("--url must be an absolute http(s) URL")
	}
	client, err := cfg.PSP.client()
	if err != nil {
		return err
	}
	if err := client.PutWebhook(ctx, cfg.PixKey, target); err != nil {
		return fmt.Errorf("register the callback address at the PSP: %w", err)
	}
	// Pix Automático's callbacks go to the same address: /rec and /cobr.
	if err := client.PutWebhookRec(ctx, target); err != nil {
		return fmt.Errorf("register the recurrences' callback address at the PSP: %w", err)
	}
	if err := client.PutWebhookCobR(ctx, target); err != nil {
		return fmt.Errorf("register the recurring charges' callback address at the PSP: %w", err)
	}
	if cfg.PSP.CallbackToken != "" {
		shown = strings.ReplaceAll(shown, cfg.PSP.CallbackToken, "{PSP_CALLBACK_TOKEN}")
	}
	return printJSON(stdout, map[string]any{"chave": cfg.PixKey, "webhook_url": shown, "callbacks_at": shown + "/pix",
		"recurrence_callbacks_at": []string{shown + "/rec", shown + "/cobr"}})
}
