package operations

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"payments/dispatcher"
	"payments/store"
	"payments/store/eventfilter"
	"payments/versions"
)

// The rules of a webhook's fields, the API's and the dashboard's alike:
// each refusal is an InputError naming its parameter, in the API's words
// (Message, Code) and in the id of the page's words (Words, Args), so the
// dashboard shows every one beside its field and the API answers the first.

// webhookInput is a webhook's fields as asked, nil where not being set.
// checkWebhook normalizes what it keeps: the name trimmed (the default
// name when blank), the URL as stored, the events without repeats.
type webhookInput struct {
	Name, URL, APIVersion *string
	Events                *[]string
	// RateLimit is deliveries per second; 0 is none.
	RateLimit *int
	// Algorithm and Secret: at creation and rotation only; an empty
	// Secret is one the service makes.
	Algorithm, Secret *string
	// Filter is a payload filter (store/eventfilter), trimmed; one left
	// empty is none (nil).
	Filter **string
	// PaymentsVersion is the dated API version its events are rendered in.
	PaymentsVersion *string
}

// checkWebhook applies every rule to in at once: nil, or InputErrors.
func (o *Operations) checkWebhook(in webhookInput) error {
	var bad InputErrors
	if in.Name != nil {
		if *in.Name = strings.TrimSpace(*in.Name); *in.Name == "" {
			*in.Name = store.DefaultWebhookName
		}
		if utf8.RuneCountInString(*in.Name) > store.MaxWebhookName {
			bad = append(bad, &InputError{Param: "name", Code: "parameter_too_long",
				Message: fmt.Sprintf("name must be at most %d characters.", store.MaxWebhookName),
				Words:   "form.too_long", Args: []any{"Max", store.MaxWebhookName}})
		}
	}
	if in.URL != nil {
		if e := o.checkURL(in.URL); e != nil {
			bad = append(bad, e)
		}
	}
	if in.APIVersion != nil && !slices.Contains(store.APIVersions, *in.APIVersion) {
		bad = append(bad, &InputError{Param: "api_version", Message: "api_version must be v2 (recommended) or v1.",
			Words: "form.api_version_unknown"})
	}
	if in.PaymentsVersion != nil && !versions.API.Known(*in.PaymentsVersion) {
		bad = append(bad, unknownVersion())
	}
	if in.Events != nil {
		if e := checkEvents(in.Events); e != nil {
			bad = append(bad, e)
		}
	}
	if in.RateLimit != nil && (*in.RateLimit < 0 || *in.RateLimit > store.MaxRateLimit) {
		bad = append(bad, &InputError{Param: "rate_limit", Message: fmt.Sprintf(
			"rate_limit must be an integer from 1 to %d (deliveries per second), or null for no limit.", store.MaxRateLimit),
			Words: "form.rate_limit", Args: []any{"Max", store.MaxRateLimit}})
	}
	if in.Algorithm != nil && !slices.Contains(store.SignatureAlgorithms, *in.Algorithm) {
		bad = append(bad, &InputError{Param: "signature_algorithm", Words: "form.signature_unknown",
			Message: "signature_algorithm must be hmac-sha256 (the default: a shared secret) or ed25519 (Standard Webhooks' v1a: receivers verify with the public key)."})
	}
	if in.Secret != nil {
		if e := checkSecret(*in.Secret, in.Algorithm); e != nil {
			bad = append(bad, e)
		}
	}
	if in.Filter != nil && *in.Filter != nil {
		if e := checkFilter(in.Filter); e != nil {
			bad = append(bad, e)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return bad
}

// checkURL applies the one URL rule (dispatcher.CheckURL) to a URL to
// store, normalizing it.
func (o *Operations) checkURL(u *string) *InputError {
	if *u == "" {
		return &InputError{Param: "url", Message: "url must be an absolute URL like https://example.com/webhooks.", Words: "form.url_missing"}
	}
	normal, err := dispatcher.CheckURL(*u, o.Webhooks.AllowPrivateNetworks)
	if err == nil {
		*u = normal
		return nil
	}
	bad := &InputError{Param: "url", Message: err.Error(), Words: "form.url_invalid"}
	var problem *dispatcher.URLError
	if errors.As(err, &problem) {
		switch {
		case problem.Problem == "scheme" && o.Webhooks.AllowPrivateNetworks:
			bad.Words = "form.url_scheme_dev"
		case problem.Problem == "scheme":
			bad.Words = "form.url_scheme"
		case problem.Problem == "too_long":
			bad.Words, bad.Args = "form.too_long", []any{"Max", dispatcher.MaxURL}
		case problem.Problem == "host":
			bad.Words = "form.url_host"
		}
	}
	return bad
}

// checkEvents asks for at least one event of the catalog, and keeps each
// once.
func checkEvents(events *[]string) *InputError {
	if len(*events) == 0 {
		return &InputError{Param: "events", Message: "Subscribe to at least one event type, e.g. payment.paid.", Words: "form.events_missing"}
	}
	var kept []string
	for i, e := range *events {
		if !slices.Contains(store.EventTypes, e) {
			return &InputError{Param: fmt.Sprintf("events[%d]", i), Words: "form.events_unknown",
				Message: fmt.Sprintf("Unknown event type %q. Known types: %s.", e, strings.Join(store.EventTypes, ", "))}
		}
		if !slices.Contains(kept, e) {
			kept = append(kept, e)
		}
	}
	*events = kept
	return nil
}

// checkSecret is the rule of a custom HMAC secret (store.CheckCustomSecret),
// which an ed25519 webhook does not take (its key is made here).
func checkSecret(secret string, algorithm *string) *InputError {
	bad := &InputError{Param: "secret"}
	switch err := store.CheckCustomSecret(secret); {
	case errors.Is(err, store.ErrSecretLength):
		bad.Message = fmt.Sprintf("A custom secret must be %d to %d characters.", store.MinCustomSecret, store.MaxCustomSecret)
		bad.Words, bad.Args = "form.secret_length", []any{"Min", store.MinCustomSecret, "Max", store.MaxCustomSecret}
		if len(secret) > store.MaxCustomSecret {
			bad.Code = "parameter_too_long"
		}
	case errors.Is(err, store.ErrSecretReserved):
		bad.Message = "A custom secret may not begin with whsk_, the form of ed25519 signing keys; for those choose signature_algorithm ed25519."
		bad.Words = "form.secret_reserved"
	case err != nil:
		bad.Message = "A custom secret may only contain printable ASCII characters without spaces."
		bad.Words = "form.secret_chars"
	case secret != "" && algorithm != nil && *algorithm == store.SignatureEd25519:
		bad.Message = secretForEd25519
		bad.Words = "form.secret_ed25519"
	default:
		return nil
	}
	return bad
}

// secretForEd25519 says why an ed25519 webhook takes no custom secret.
const secretForEd25519 = "A custom secret is an HMAC secret (signature_algorithm hmac-sha256); an ed25519 webhook's signing key is made by the service and its public key shown on the webhook."

// checkFilter compiles a payload filter, trimmed (an empty one is none):
// a refusal says why, in the expression's own terms.
func checkFilter(f **string) *InputError {
	src := strings.TrimSpace(**f)
	if src == "" {
		*f = nil
		return nil
	}
	*f = &src
	if _, err := eventfilter.Compile(src); err != nil {
		var refused *eventfilter.Error
		if !errors.As(err, &refused) {
			return &InputError{Param: "filter", Message: "filter could not be checked: " + err.Error(), Words: "form.filter_invalid",
				Args: []any{"Reason", err.Error()}}
		}
		return &InputError{Param: "filter", Message: "filter is not a CEL expression this service takes: " + refused.Reason + ".",
			Words: "form.filter_invalid", Args: []any{"Reason", refused.Reason}}
	}
	return nil
}
