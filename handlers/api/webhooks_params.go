package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"payments/dispatcher"
	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/store"
)

// webhookParams is a validated create or update body; nil means "not given".
type webhookParams struct {
	Name       *string
	URL        *string
	APIVersion *string
	Events     []string
	Enabled    *bool
	Secret     *string
	Ordered    *bool
	// MTLS replaces the mutual TLS settings; RemoveMTLS (an explicit null) drops them.
	MTLS       *store.WebhookMTLS
	RemoveMTLS bool
	// SignatureAlgorithm is hmac-sha256 or ed25519 (create only).
	SignatureAlgorithm string
	// RateLimit is deliveries per second; 0 (from an explicit null) removes it.
	RateLimit *int
}

var webhookCreateFields = []string{"name", "url", "api_version", "events", "enabled", "secret", "rate_limit", "signature_algorithm", "ordered", "mtls"}
var webhookUpdateFields = []string{"name", "url", "api_version", "events", "enabled", "rate_limit", "ordered", "mtls"}

func parseWebhookParams(o request.Object, create, allowPrivate bool) (webhookParams, *reply.Error) {
	var p webhookParams
	if create {
		for _, required := range []string{"url", "events"} {
			if !o.Present(required) {
				return p, o.Missing(required)
			}
		}
	}
	if o.Present("name") {
		name, apiErr := o.Str("name", store.MaxWebhookName)
		if apiErr != nil {
			return p, apiErr
		}
		name = strings.TrimSpace(name)
		if name == "" {
			name = store.DefaultWebhookName
		}
		p.Name = &name
	}
	if o.Present("url") {
		u, apiErr := o.Str("url", store.MaxWebhookURL)
		if apiErr != nil {
			return p, apiErr
		}
		u, err := dispatcher.CheckURL(u, allowPrivate)
		if err != nil {
			return p, reply.InvalidParam("parameter_invalid", "url", "%s", err.Error())
		}
		p.URL = &u
	}
	if o.Present("api_version") {
		v, apiErr := o.Str("api_version", 2)
		if apiErr != nil {
			return p, apiErr
		}
		if !slices.Contains(store.APIVersions, v) {
			return p, reply.InvalidParam("parameter_invalid", "api_version", "api_version must be v2 (recommended) or v1.")
		}
		p.APIVersion = &v
	}
	if o.Present("events") {
		events, apiErr := parseEventTypes(o)
		if apiErr != nil {
			return p, apiErr
		}
		p.Events = events
	}
	if o.Present("enabled") {
		b, apiErr := o.Bool("enabled")
		if apiErr != nil {
			return p, apiErr
		}
		p.Enabled = &b
	}
	if o.Present("ordered") {
		b, apiErr := o.Bool("ordered")
		if apiErr != nil {
			return p, apiErr
		}
		p.Ordered = &b
	}
	if o.Present("rate_limit") {
		outOfRange := func() *reply.Error {
			return reply.InvalidParam("parameter_invalid", "rate_limit",
				"rate_limit must be an integer from 1 to %d (deliveries per second), or null for no limit.", store.MaxRateLimit)
		}
		n, apiErr := o.IntegerBounded("rate_limit", 1, store.MaxRateLimit, outOfRange, outOfRange)
		if apiErr != nil {
			return p, apiErr
		}
		limit := int(n)
		p.RateLimit = &limit
	} else if slices.Contains(o.Fields(), "rate_limit") {
		none := 0
		p.RateLimit = &none
	}
	if o.Present("secret") {
		secret, apiErr := parseCustomSecret(o)
		if apiErr != nil {
			return p, apiErr
		}
		p.Secret = &secret
	}
	if o.Present("mtls") {
		m, apiErr := parseMTLS(o)
		if apiErr != nil {
			return p, apiErr
		}
		p.MTLS = m
	} else if slices.Contains(o.Fields(), "mtls") {
		p.RemoveMTLS = true
	}
	if o.Present("signature_algorithm") {
		algorithm, apiErr := parseSignatureAlgorithm(o)
		if apiErr != nil {
			return p, apiErr
		}
		p.SignatureAlgorithm = algorithm
	}
	return p, nil
}

// parseMTLS reads mtls: {certificate, private_key, server_ca}, each PEM
// text (checked by the operation, which says what is wrong in words).
func parseMTLS(o request.Object) (*store.WebhookMTLS, *reply.Error) {
	m, apiErr := o.Object("mtls")
	if apiErr != nil {
		return nil, apiErr
	}
	if apiErr := m.RejectUnknown("certificate", "private_key", "server_ca"); apiErr != nil {
		return nil, apiErr
	}
	var out store.WebhookMTLS
	for name, dst := range map[string]*string{"certificate": &out.Certificate, "private_key": &out.PrivateKey, "server_ca": &out.ServerCA} {
		if !m.Present(name) {
			continue
		}
		v, apiErr := m.Str(name, dispatcher.MaxPEM)
		if apiErr != nil {
			return nil, apiErr
		}
		*dst = v
	}
	return &out, nil
}

func parseSignatureAlgorithm(o request.Object) (string, *reply.Error) {
	v, apiErr := o.Str("signature_algorithm", 16)
	if apiErr != nil {
		return "", apiErr
	}
	if !slices.Contains(store.SignatureAlgorithms, v) {
		return "", reply.InvalidParam("parameter_invalid", "signature_algorithm",
			"signature_algorithm must be hmac-sha256 (the default: a shared secret) or ed25519 (Standard Webhooks' v1a: receivers verify with the public key).")
	}
	return v, nil
}

func parseEventTypes(o request.Object) ([]string, *reply.Error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(o.Raw("events"), &raw); err != nil {
		return nil, o.WrongType("events", "an array of event types")
	}
	if len(raw) == 0 {
		return nil, reply.InvalidParam("parameter_invalid", "events", "Subscribe to at least one event type, e.g. payment.paid.")
	}
	var events []string
	for i, r := range raw {
		param := fmt.Sprintf("events[%d]", i)
		var e string
		if err := json.Unmarshal(r, &e); err != nil {
			return nil, reply.InvalidParam("parameter_invalid_type", param, "%s must be a string.", param)
		}
		if !slices.Contains(store.EventTypes, e) {
			return nil, reply.InvalidParam("parameter_invalid", param, "Unknown event type %q. Known types: %s.", e, strings.Join(store.EventTypes, ", "))
		}
		if !slices.Contains(events, e) {
			events = append(events, e)
		}
	}
	return events, nil
}

func parseCustomSecret(o request.Object) (string, *reply.Error) {
	secret, apiErr := o.Str("secret", store.MaxCustomSecret)
	if apiErr != nil {
		return "", apiErr
	}
	switch err := store.CheckCustomSecret(secret); {
	case errors.Is(err, store.ErrSecretLength):
		return "", reply.InvalidParam("parameter_invalid", "secret", "A custom secret must be %d to %d characters.", store.MinCustomSecret, store.MaxCustomSecret)
	case errors.Is(err, store.ErrSecretReserved):
		return "", reply.InvalidParam("parameter_invalid", "secret", "A custom secret may not begin with whsk_, the form of ed25519 signing keys; for those choose signature_algorithm ed25519.")
	case err != nil:
		return "", reply.InvalidParam("parameter_invalid", "secret", "A custom secret may only contain printable ASCII characters without spaces.")
	}
	return secret, nil
}
