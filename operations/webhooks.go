package operations

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"time"

	"payments/dispatcher"
	"payments/dispatcher/signature"
	"payments/store"
)

// WebhookRules holds the URL rule's one setting: AllowPrivateNetworks accepts
// http and private addresses (development only; link-local and metadata
// addresses never pass, see dispatcher.CheckURL).
type WebhookRules struct {
	AllowPrivateNetworks bool
}

// CreateWebhook stores an endpoint (its URL normalized by the URL rule)
// and returns it with its signing secret, shown this once.
func (o *Operations) CreateWebhook(ctx context.Context, who store.Actor, in store.NewWebhook) (*store.Webhook, string, error) {
	asked := webhookInput{Name: &in.Name, URL: &in.URL, APIVersion: &in.APIVersion, Events: &in.Events, RateLimit: in.RateLimit,
		Secret: &in.Signing.Secret, Filter: &in.Filter}
	if in.PaymentsVersion != "" {
		asked.PaymentsVersion = &in.PaymentsVersion
	}
	if in.Signing.Algorithm != "" {
		asked.Algorithm = &in.Signing.Algorithm
	}
	if err := o.checkWebhook(asked); err != nil {
		return nil, "", err
	}
	if in.RateLimit != nil && *in.RateLimit == 0 {
		in.RateLimit = nil
	}
	signing, err := newSigning(in.Signing.Algorithm, in.Signing.Secret)
	if err != nil {
		return nil, "", err
	}
	in.Signing = signing
	if err := checkMTLS(in.MTLS, o.Store.Now()); err != nil {
		return nil, "", err
	}
	var w *store.Webhook
	var secret string
	err = o.record(ctx, who, in.Scope, rule("CreateWebhook"), "webhook.created", func(ctx context.Context) (string, store.Changes, error) {
		var err error
		if w, secret, err = o.Store.CreateWebhook(ctx, in); err != nil {
			return "", nil, err
		}
		return w.ID, store.Changes{"url": {nil, w.URL}, "events": {nil, w.Events}, "secret": {nil, "(set)"},
			"signature_algorithm": {nil, w.SignatureAlgorithm}, "ordered": {nil, w.Ordered}, "forward_trace": {nil, w.ForwardTrace}, "filter": {nil, w.Filter},
			"payments_version": {nil, w.PaymentsVersion}, "mtls": {nil, mtlsShown(w)}}, nil
	})
	if err != nil {
		return nil, "", err
	}
	return w, shownSecret(w, secret), nil
}

// newSigning is what a webhook signs with when told algorithm ("": HMAC)
// and custom (an HMAC secret of the user's; "": generated): an ed25519 key
// pair is made here.
func newSigning(algorithm, custom string) (store.SigningSecret, error) {
	if algorithm == "" {
		algorithm = store.SignatureHMAC
	}
	if bad := checkSecret(custom, &algorithm); bad != nil {
		return store.SigningSecret{}, bad
	}
	switch algorithm {
	case store.SignatureHMAC:
		return store.SigningSecret{Algorithm: algorithm, Secret: custom}, nil
	case store.SignatureEd25519:
		key, public := signature.GenerateSigningKey()
		return store.SigningSecret{Algorithm: algorithm, Secret: key, PublicKey: public}, nil
	}
	return store.SigningSecret{}, fmt.Errorf("operations: unknown signature algorithm %q", algorithm)
}

// shownSecret is the secret to show its creator once: an HMAC secret (the
// receiver needs it); an ed25519 signing key never leaves the service (the
// receiver verifies with the public key on the webhook).
func shownSecret(w *store.Webhook, secret string) string {
	if w.SignatureAlgorithm == store.SignatureEd25519 {
		return ""
	}
	return secret
}

// UpdateWebhook changes what u sets (enabling or disabling it included).
func (o *Operations) UpdateWebhook(ctx context.Context, who store.Actor, scope store.Scope, id string, u store.WebhookUpdate) (*store.Webhook, error) {
	asked := webhookInput{Name: u.Name, URL: u.URL, APIVersion: u.APIVersion, RateLimit: u.RateLimit, Filter: &u.Filter, PaymentsVersion: u.PaymentsVersion}
	if u.Events != nil {
		asked.Events = &u.Events
	}
	setFilter := u.Filter != nil
	if err := o.checkWebhook(asked); err != nil {
		return nil, err
	}
	if setFilter && u.Filter == nil {
		u.RemoveFilter = true // given empty: none
	}
	if err := checkMTLS(u.MTLS, o.Store.Now()); err != nil {
		return nil, err
	}
	action := "webhook.updated"
	if u.Enabled != nil && u.URL == nil && u.Name == nil && u.Events == nil && u.APIVersion == nil && u.RateLimit == nil && u.Ordered == nil &&
		u.ForwardTrace == nil && u.Filter == nil && !u.RemoveFilter && u.PaymentsVersion == nil && u.MTLS == nil && !u.RemoveMTLS {
		action = map[bool]string{true: "webhook.enabled", false: "webhook.disabled"}[*u.Enabled]
	}
	var w *store.Webhook
	err := o.record(ctx, who, scope, rule("UpdateWebhook"), action, func(ctx context.Context) (string, store.Changes, error) {
		before, err := o.Store.Webhook(ctx, scope, id)
		if err != nil {
			return "", nil, err
		}
		if w, err = o.Store.UpdateWebhook(ctx, scope, id, u); err != nil {
			return "", nil, err
		}
		return w.ID, webhookChanges(before, w), nil
	})
	if err != nil {
		return nil, err
	}
	return w, nil
}

// RotateWebhookSecret gives the endpoint a new secret (custom, or a new
// one when "") or a new ed25519 key, of algorithm ("": the one it has),
// the old one still signing for SecretRotationOverlap; a new HMAC secret
// is returned this once.
func (o *Operations) RotateWebhookSecret(ctx context.Context, who store.Actor, scope store.Scope, id, custom, algorithm string) (*store.Webhook, string, error) {
	asked := webhookInput{Secret: &custom}
	if algorithm != "" {
		asked.Algorithm = &algorithm
	}
	if err := o.checkWebhook(asked); err != nil {
		return nil, "", err
	}
	if err := o.stepUp(who, false); err != nil {
		return nil, "", err
	}
	var w *store.Webhook
	var secret string
	err := o.record(ctx, who, scope, rule("RotateWebhookSecret"), "webhook.secret_rotated", func(ctx context.Context) (string, store.Changes, error) {
		before, err := o.Store.Webhook(ctx, scope, id)
		if err != nil {
			return "", nil, err
		}
		if algorithm == "" {
			algorithm = before.SignatureAlgorithm
		}
		next, err := newSigning(algorithm, custom)
		if err != nil {
			return "", nil, err
		}
		if w, secret, err = o.Store.RotateWebhookSecret(ctx, scope, id, next); err != nil {
			return "", nil, err
		}
		changes := store.Changes{"secret": {"(previous)", "(changed)"}}
		if before.SignatureAlgorithm != w.SignatureAlgorithm {
			changes["signature_algorithm"] = [2]any{before.SignatureAlgorithm, w.SignatureAlgorithm}
		}
		return w.ID, changes, nil
	})
	if err != nil {
		return nil, "", err
	}
	return w, shownSecret(w, secret), nil
}

// DeleteWebhook removes the endpoint; its pending deliveries end.
func (o *Operations) DeleteWebhook(ctx context.Context, who store.Actor, scope store.Scope, id string) error {
	return o.record(ctx, who, scope, rule("DeleteWebhook"), "webhook.deleted", func(ctx context.Context) (string, store.Changes, error) {
		return id, nil, o.Store.DeleteWebhook(ctx, scope, id)
	})
}

// ResendDelivery sends one delivery of the endpoint again.
func (o *Operations) ResendDelivery(ctx context.Context, who store.Actor, scope store.Scope, webhookID, id string) (*store.Delivery, error) {
	var d *store.Delivery
	err := o.record(ctx, who, scope, rule("ResendDelivery"), "delivery.resent", func(ctx context.Context) (string, store.Changes, error) {
		var err error
		if d, err = o.Store.ResendDelivery(ctx, scope, webhookID, id); err != nil {
			return "", nil, err
		}
		return d.ID, nil, nil
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// ResendFailedSince sends again every delivery of the endpoint since then
// whose last attempt failed, given up or still retrying; it returns how many.
func (o *Operations) ResendFailedSince(ctx context.Context, who store.Actor, scope store.Scope, webhookID string, since time.Time) (int, error) {
	var n int
	err := o.record(ctx, who, scope, rule("ResendFailedSince"), "webhook.failed_resent", func(ctx context.Context) (string, store.Changes, error) {
		var err error
		n, err = o.Store.ResendFailedSince(ctx, scope, webhookID, since)
		return webhookID, store.Changes{"resent": {nil, n}}, err
	})
	return n, err
}

// RecoverEvents queues for the endpoint the events of [since, until) it
// was subscribed to and never got; it returns how many.
func (o *Operations) RecoverEvents(ctx context.Context, who store.Actor, scope store.Scope, webhookID string, since, until time.Time) (int, error) {
	var n int
	err := o.record(ctx, who, scope, rule("RecoverEvents"), "webhook.events_recovered", func(ctx context.Context) (string, store.Changes, error) {
		var err error
		n, err = o.Store.RecoverEvents(ctx, scope, webhookID, since, until)
		return webhookID, store.Changes{"recovered": {nil, n}}, err
	})
	return n, err
}

// ReplayWebhook starts a replay to the scope's webhook webhookID of every
// event of types (nil: all the webhook's) created in [from, to]: checked
// and counted now (at most store.MaxReplayEvents; one at a time per
// webhook), delivered by the maintenance loop.
func (o *Operations) ReplayWebhook(ctx context.Context, who store.Actor, scope store.Scope, webhookID string, from, to time.Time,
	types []string,
) (*store.WebhookReplay, error) {
	var r *store.WebhookReplay
	err := o.record(ctx, who, scope, rule("ReplayWebhook"), "webhook.replay_started", func(ctx context.Context) (string, store.Changes, error) {
		var err error
		if r, err = o.Store.StartReplay(ctx, scope, webhookID, from, to, types); err != nil {
			return "", nil, err
		}
		return webhookID, store.Changes{"replay": {nil, r.ID}, "from": {nil, r.From}, "to": {nil, r.To}, "types": {nil, r.Types},
			"events_total": {nil, r.EventsTotal}}, nil
	})
	return r, err
}

// ResendEvent queues event e again, for one endpoint or ("") every one
// subscribed to its type.
func (o *Operations) ResendEvent(ctx context.Context, who store.Actor, scope store.Scope, e *store.Event, webhookID string) ([]store.Delivery, error) {
	var made []store.Delivery
	err := o.record(ctx, who, scope, rule("ResendEvent"), "event.resent", func(ctx context.Context) (string, store.Changes, error) {
		var err error
		made, err = o.Store.ResendEvent(ctx, scope, e, webhookID)
		return e.ID, store.Changes{"deliveries": {nil, len(made)}}, err
	})
	return made, err
}

// SendTest sends w a made-up event of eventType now, records it as a test
// delivery with its attempt, and records who asked. The attempt is a
// request to the receiver, so it is not inside a transaction: the record
// of who asked follows it.
func (o *Operations) SendTest(ctx context.Context, who store.Actor, w *store.Webhook, eventType string) (dispatcher.TestSendResult, error) {
	if err := Allow(who, rule("SendTest")); err != nil {
		return dispatcher.TestSendResult{}, err
	}
	ctx = store.WithActor(ctx, who)
	res, err := o.Tester.SendTest(ctx, w, eventType)
	if err != nil {
		return res, err
	}
	return res, o.Store.Audit(ctx, store.AuditRecord{Scope: w.Scope(), Action: "webhook.tested", ObjectID: w.ID,
		Changes: store.Changes{"event_type": {nil, eventType}}})
}

// webhookChanges are the settings an update changed, before and after.
func webhookChanges(before, after *store.Webhook) store.Changes {
	c := store.Changes{}
	add := func(field string, b, a any, same bool) {
		if !same {
			c[field] = [2]any{b, a}
		}
	}
	add("url", before.URL, after.URL, before.URL == after.URL)
	add("name", before.Name, after.Name, before.Name == after.Name)
	add("enabled", before.Enabled, after.Enabled, before.Enabled == after.Enabled)
	add("events", before.Events, after.Events, slices.Equal(before.Events, after.Events))
	add("api_version", before.APIVersion, after.APIVersion, before.APIVersion == after.APIVersion)
	add("ordered", before.Ordered, after.Ordered, before.Ordered == after.Ordered)
	add("forward_trace", before.ForwardTrace, after.ForwardTrace, before.ForwardTrace == after.ForwardTrace)
	add("payments_version", before.PaymentsVersion, after.PaymentsVersion, before.PaymentsVersion == after.PaymentsVersion)
	add("filter", before.Filter, after.Filter, reflect.DeepEqual(before.Filter, after.Filter))
	add("mtls", mtlsShown(before), mtlsShown(after), reflect.DeepEqual(mtlsShown(before), mtlsShown(after)))
	return c
}
