package operations

import (
	"context"
	"time"

	"payments/dispatcher"
	"payments/store"
)

// Webhooks holds the URL rule's one setting: AllowPrivateNetworks accepts
// http and private addresses (development only; link-local and metadata
// addresses never pass, see dispatcher.CheckURL).
type Webhooks struct {
	AllowPrivateNetworks bool
}

// checkURL applies the one URL rule to a URL to store, normalized.
func (o *Operations) checkURL(u *string) error {
	if u == nil {
		return nil
	}
	normal, err := dispatcher.CheckURL(*u, o.Webhooks.AllowPrivateNetworks)
	if err != nil {
		return err
	}
	*u = normal
	return nil
}

// CreateWebhook stores an endpoint (its URL normalized by the URL rule)
// and returns it with its signing secret, shown this once.
func (o *Operations) CreateWebhook(ctx context.Context, who store.Actor, in store.NewWebhook) (*store.Webhook, string, error) {
	if err := o.checkURL(&in.URL); err != nil {
		return nil, "", err
	}
	if in.Secret != "" {
		if err := store.CheckCustomSecret(in.Secret); err != nil {
			return nil, "", err
		}
	}
	ctx = store.WithActor(ctx, who)
	var w *store.Webhook
	var secret string
	err := o.audited(ctx, in.Scope, "webhook.created", func(ctx context.Context) (string, error) {
		var err error
		if w, secret, err = o.Store.CreateWebhook(ctx, in); err != nil {
			return "", err
		}
		return w.ID, nil
	})
	if err != nil {
		return nil, "", err
	}
	return w, secret, nil
}

// UpdateWebhook changes what u sets (enabling or disabling it included).
func (o *Operations) UpdateWebhook(ctx context.Context, who store.Actor, scope store.Scope, id string, u store.WebhookUpdate) (*store.Webhook, error) {
	if err := o.checkURL(u.URL); err != nil {
		return nil, err
	}
	action := "webhook.updated"
	if u.Enabled != nil && u.URL == nil && u.Name == nil && u.Events == nil && u.APIVersion == nil && u.RateLimit == nil {
		action = map[bool]string{true: "webhook.enabled", false: "webhook.disabled"}[*u.Enabled]
	}
	var w *store.Webhook
	err := o.audited(store.WithActor(ctx, who), scope, action, func(ctx context.Context) (string, error) {
		var err error
		if w, err = o.Store.UpdateWebhook(ctx, scope, id, u); err != nil {
			return "", err
		}
		return w.ID, nil
	})
	if err != nil {
		return nil, err
	}
	return w, nil
}

// RotateWebhookSecret gives the endpoint a new secret (custom, or a new
// one when ""), the old one still signing for a while; the new one is
// returned this once.
func (o *Operations) RotateWebhookSecret(ctx context.Context, who store.Actor, scope store.Scope, id, custom string) (*store.Webhook, string, error) {
	if custom != "" {
		if err := store.CheckCustomSecret(custom); err != nil {
			return nil, "", err
		}
	}
	var w *store.Webhook
	var secret string
	err := o.audited(store.WithActor(ctx, who), scope, "webhook.secret_rotated", func(ctx context.Context) (string, error) {
		var err error
		if w, secret, err = o.Store.RotateWebhookSecret(ctx, scope, id, custom); err != nil {
			return "", err
		}
		return w.ID, nil
	})
	if err != nil {
		return nil, "", err
	}
	return w, secret, nil
}

// DeleteWebhook removes the endpoint; its pending deliveries end.
func (o *Operations) DeleteWebhook(ctx context.Context, who store.Actor, scope store.Scope, id string) error {
	return o.audited(store.WithActor(ctx, who), scope, "webhook.deleted", func(ctx context.Context) (string, error) {
		return id, o.Store.DeleteWebhook(ctx, scope, id)
	})
}

// ResendDelivery sends one delivery of the endpoint again.
func (o *Operations) ResendDelivery(ctx context.Context, who store.Actor, scope store.Scope, webhookID, id string) (*store.Delivery, error) {
	var d *store.Delivery
	err := o.audited(store.WithActor(ctx, who), scope, "delivery.resent", func(ctx context.Context) (string, error) {
		var err error
		if d, err = o.Store.ResendDelivery(ctx, scope, webhookID, id); err != nil {
			return "", err
		}
		return d.ID, nil
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
	err := o.audited(store.WithActor(ctx, who), scope, "webhook.failed_resent", func(ctx context.Context) (string, error) {
		var err error
		n, err = o.Store.ResendFailedSince(ctx, scope, webhookID, since)
		return webhookID, err
	})
	return n, err
}

// RecoverEvents queues for the endpoint the events of [since, until) it
// was subscribed to and never got; it returns how many.
func (o *Operations) RecoverEvents(ctx context.Context, who store.Actor, scope store.Scope, webhookID string, since, until time.Time) (int, error) {
	var n int
	err := o.audited(store.WithActor(ctx, who), scope, "webhook.events_recovered", func(ctx context.Context) (string, error) {
		var err error
		n, err = o.Store.RecoverEvents(ctx, scope, webhookID, since, until)
		return webhookID, err
	})
	return n, err
}

// ResendEvent queues event e again, for one endpoint or ("") every one
// subscribed to its type.
func (o *Operations) ResendEvent(ctx context.Context, who store.Actor, scope store.Scope, e *store.Event, webhookID string) ([]store.Delivery, error) {
	var made []store.Delivery
	err := o.audited(store.WithActor(ctx, who), scope, "event.resent", func(ctx context.Context) (string, error) {
		var err error
		made, err = o.Store.ResendEvent(ctx, scope, e, webhookID)
		return e.ID, err
	})
	return made, err
}

// SendTest sends w a made-up event of eventType now, records it as a test
// delivery with its attempt, and records who asked. The attempt is a
// request to the receiver, so it is not inside a transaction: the record
// of who asked follows it.
func (o *Operations) SendTest(ctx context.Context, who store.Actor, w *store.Webhook, eventType string) (dispatcher.TestSendResult, error) {
	ctx = store.WithActor(ctx, who)
	res, err := o.Tester.SendTest(ctx, w, eventType)
	if err != nil {
		return res, err
	}
	return res, o.Store.Audit(ctx, w.Scope(), "webhook.tested", w.ID)
}
