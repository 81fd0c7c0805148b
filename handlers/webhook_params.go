package handlers

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strings"

	"payments/dispatcher"
	"payments/store"
)

const (
	maxWebhookName     = 120
	maxWebhookURL      = 2048
	minCustomSecret    = 16
	maxCustomSecret    = 128
	defaultWebhookName = "Webhook"
)

// webhookParams is a validated create or update body; nil means "not given".
type webhookParams struct {
	Name       *string
	URL        *string
	APIVersion *string
	Events     []string
	Enabled    *bool
	Secret     *string
}

var webhookCreateFields = []string{"name", "url", "api_version", "events", "enabled", "secret"}
var webhookUpdateFields = []string{"name", "url", "api_version", "events", "enabled"}

func parseWebhookParams(body []byte, create, allowPrivate bool) (webhookParams, *Error) {
	var p webhookParams
	o, apiErr := decodeBody(body)
	if apiErr != nil {
		return p, apiErr
	}
	allowed := webhookUpdateFields
	if create {
		allowed = webhookCreateFields
	}
	if apiErr := o.rejectUnknown(allowed...); apiErr != nil {
		return p, apiErr
	}
	if create {
		for _, required := range []string{"url", "events"} {
			if !o.present(required) {
				return p, o.missing(required)
			}
		}
	}
	if o.present("name") {
		name, apiErr := o.str("name", maxWebhookName)
		if apiErr != nil {
			return p, apiErr
		}
		name = strings.TrimSpace(name)
		if name == "" {
			name = defaultWebhookName
		}
		p.Name = &name
	}
	if o.present("url") {
		u, apiErr := o.str("url", maxWebhookURL)
		if apiErr != nil {
			return p, apiErr
		}
		if apiErr := validateWebhookURL(u, allowPrivate); apiErr != nil {
			return p, apiErr
		}
		p.URL = &u
	}
	if o.present("api_version") {
		v, apiErr := o.str("api_version", 2)
		if apiErr != nil {
			return p, apiErr
		}
		if v != "v1" && v != "v2" {
			return p, InvalidParam("parameter_invalid", "api_version", "api_version must be v2 (recommended) or v1.")
		}
		p.APIVersion = &v
	}
	if o.present("events") {
		events, apiErr := parseEventTypes(o)
		if apiErr != nil {
			return p, apiErr
		}
		p.Events = events
	}
	if o.present("enabled") {
		var b bool
		if err := json.Unmarshal(o.fields["enabled"], &b); err != nil {
			return p, o.wrongType("enabled", "a boolean")
		}
		p.Enabled = &b
	}
	if o.present("secret") {
		secret, apiErr := parseCustomSecret(o)
		if apiErr != nil {
			return p, apiErr
		}
		p.Secret = &secret
	}
	return p, nil
}

func parseEventTypes(o jsonObject) ([]string, *Error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(o.fields["events"], &raw); err != nil {
		return nil, o.wrongType("events", "an array of event types")
	}
	if len(raw) == 0 {
		return nil, InvalidParam("parameter_invalid", "events", "Subscribe to at least one event type, e.g. payment.paid.")
	}
	var events []string
	for i, r := range raw {
		param := fmt.Sprintf("events[%d]", i)
		var e string
		if err := json.Unmarshal(r, &e); err != nil {
			return nil, InvalidParam("parameter_invalid_type", param, "%s must be a string.", param)
		}
		if !slices.Contains(store.EventTypes, e) {
			return nil, InvalidParam("parameter_invalid", param, "Unknown event type %q. Known types: %s.", e, strings.Join(store.EventTypes, ", "))
		}
		if !slices.Contains(events, e) {
			events = append(events, e)
		}
	}
	return events, nil
}

func parseCustomSecret(o jsonObject) (string, *Error) {
	secret, apiErr := o.str("secret", maxCustomSecret)
	if apiErr != nil {
		return "", apiErr
	}
	return secret, validateCustomSecret(secret)
}

// validateCustomSecret checks a secret chosen by the user; empty means
// "generate one", as in the dashboard form.
func validateCustomSecret(secret string) *Error {
	if secret == "" {
		return nil
	}
	if len(secret) < minCustomSecret || len(secret) > maxCustomSecret {
		return InvalidParam("parameter_invalid", "secret", "A custom secret must be %d to %d characters.", minCustomSecret, maxCustomSecret)
	}
	for _, r := range secret {
		if r < 0x21 || r > 0x7e {
			return InvalidParam("parameter_invalid", "secret", "A custom secret may only contain printable ASCII characters without spaces.")
		}
	}
	return nil
}

// validateWebhookURL gives early, clear feedback; the dispatcher's dialer
// is the real guard, applied after DNS resolution on every attempt.
func validateWebhookURL(raw string, allowPrivate bool) *Error {
	bad := func(format string, args ...any) *Error {
		return InvalidParam("parameter_invalid", "url", format, args...)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return bad("url must be an absolute URL like https://example.com/webhooks.")
	}
	if u.Scheme != "https" && !(allowPrivate && u.Scheme == "http") {
		return bad("url must use https.")
	}
	if u.User != nil {
		return bad("url must not contain credentials.")
	}
	if u.Fragment != "" {
		return bad("url must not contain a fragment.")
	}
	if allowPrivate {
		return nil
	}
	host := strings.ToLower(u.Hostname())
	if host == "localhost" || strings.HasSuffix(host, ".localhost") || strings.HasSuffix(host, ".internal") || strings.HasSuffix(host, ".local") {
		return bad("url must point to a public host, not %s.", host)
	}
	if addr, err := netip.ParseAddr(host); err == nil {
		if err := dispatcher.CheckAddress(addr); err != nil {
			return bad("url must point to a public address, not %s.", addr)
		}
	}
	return nil
}
