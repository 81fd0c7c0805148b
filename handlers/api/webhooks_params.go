package api

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"payments/dispatcher"
	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/store"
)

// webhookParams is a parsed create or update body; nil means "not given".
type webhookParams struct {
	Name       *string
	URL        *string
	APIVersion *string
	Events     []string
	Enabled    *bool
	Secret     *string
	Ordered    *bool
	// ForwardTrace sends each attempt's traceparent and tracestate.
	ForwardTrace *bool
	// PaymentsVersion is the dated API version its events are rendered in.
	PaymentsVersion *string
	// Filter replaces the payload filter; RemoveFilter (an explicit null) drops it.
	Filter       *string
	RemoveFilter bool
	// MTLS replaces the mutual TLS settings; RemoveMTLS (an explicit null) drops them.
	MTLS       *store.WebhookMTLS
	RemoveMTLS bool
	// SignatureAlgorithm is hmac-sha256 or ed25519 (create only).
	SignatureAlgorithm string
	// RateLimit is deliveries per second; 0 (from an explicit null) removes it.
	RateLimit *int
}

var webhookCreateFields = []string{"name", "url", "api_version", "events", "enabled", "secret", "rate_limit", "signature_algorithm", "ordered",
	"forward_trace", "filter", "payments_version", "mtls"}
var webhookUpdateFields = []string{"name", "url", "api_version", "events", "enabled", "rate_limit", "ordered", "forward_trace", "filter",
	"payments_version", "mtls"}

// parseWebhookParams reads the fields' types; their rules (lengths, the
// URL rule, the event catalog, the ranges) are the operation's, which
// answers with the parameter it refuses.
func parseWebhookParams(o request.Object, create bool) (webhookParams, *reply.Error) {
	var p webhookParams
	if create {
		for _, required := range []string{"url", "events"} {
			if !o.Present(required) {
				return p, o.Missing(required)
			}
		}
	}
	for _, f := range []struct {
		name string
		dst  **string
	}{{"name", &p.Name}, {"url", &p.URL}, {"api_version", &p.APIVersion}, {"payments_version", &p.PaymentsVersion}} {
		name, dst := f.name, f.dst
		if !o.Present(name) {
			continue
		}
		v, apiErr := o.Str(name, ruledByTheOperation)
		if apiErr != nil {
			return p, apiErr
		}
		*dst = &v
	}
	if o.Present("events") {
		events, apiErr := parseEventTypes(o)
		if apiErr != nil {
			return p, apiErr
		}
		p.Events = events
	}
	for _, f := range []struct {
		name string
		dst  **bool
	}{{"enabled", &p.Enabled}, {"ordered", &p.Ordered}, {"forward_trace", &p.ForwardTrace}} {
		name, dst := f.name, f.dst
		if !o.Present(name) {
			continue
		}
		b, apiErr := o.Bool(name)
		if apiErr != nil {
			return p, apiErr
		}
		*dst = &b
	}
	if o.Present("rate_limit") {
		// 0 is what "no limit" becomes below, so a sent 0 is refused here.
		notPositive := func() *reply.Error {
			return reply.InvalidParam("parameter_invalid", "rate_limit",
				"rate_limit must be a positive integer (deliveries per second), or null for no limit.")
		}
		beyondInt64 := func() *reply.Error {
			return reply.InvalidParam("parameter_invalid", "rate_limit", "rate_limit is too large.")
		}
		n, apiErr := o.IntegerBounded("rate_limit", 1, math.MaxInt64, notPositive, beyondInt64)
		if apiErr != nil {
			return p, apiErr
		}
		limit := int(n)
		p.RateLimit = &limit
	} else if slices.Contains(o.Fields(), "rate_limit") {
		none := 0
		p.RateLimit = &none
	}
	if o.Present("filter") {
		f, apiErr := o.Str("filter", ruledByTheOperation)
		if apiErr != nil {
			return p, apiErr
		}
		p.Filter = &f
	} else if slices.Contains(o.Fields(), "filter") {
		p.RemoveFilter = true
	}
	if o.Present("secret") {
		secret, apiErr := o.Str("secret", ruledByTheOperation)
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
		algorithm, apiErr := o.Str("signature_algorithm", ruledByTheOperation)
		if apiErr != nil {
			return p, apiErr
		}
		p.SignatureAlgorithm = algorithm
	}
	return p, nil
}

// ruledByTheOperation bounds a string field no more than the body limit
// does: the operation says how long each may be.
const ruledByTheOperation = math.MaxInt

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

// parseEventTypes reads events, an array of strings.
func parseEventTypes(o request.Object) ([]string, *reply.Error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(o.Raw("events"), &raw); err != nil {
		return nil, o.WrongType("events", "an array of event types")
	}
	events := make([]string, len(raw))
	for i, r := range raw {
		if err := json.Unmarshal(r, &events[i]); err != nil {
			param := fmt.Sprintf("events[%d]", i)
			return nil, reply.InvalidParam("parameter_invalid_type", param, "%s must be a string.", param)
		}
	}
	return events, nil
}
