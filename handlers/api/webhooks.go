package api

import (
	"net/http"
	"slices"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/store"
	"payments/store/apimodel"
)

// CreateWebhook handles POST /api/v1/webhooks.
func (a *API) CreateWebhook(c *fiber.Ctx) error {
	o, apiErr := request.Body(c, webhookCreateFields...)
	if apiErr != nil {
		return apiErr
	}
	p, apiErr := parseWebhookParams(o, true)
	if apiErr != nil {
		return apiErr
	}
	in := store.NewWebhook{Scope: request.Scope(c), Name: store.DefaultWebhookName, URL: *p.URL, APIVersion: store.APIVersions[0],
		Events: p.Events, Enabled: true}
	if p.Name != nil {
		in.Name = *p.Name
	}
	if p.APIVersion != nil {
		in.APIVersion = *p.APIVersion
	}
	if p.Enabled != nil {
		in.Enabled = *p.Enabled
	}
	if p.Ordered != nil {
		in.Ordered = *p.Ordered
	}
	if p.ForwardTrace != nil {
		in.ForwardTrace = *p.ForwardTrace
	}
	// Its events speak the version named, else the request's: the
	// integration that makes it is the one that reads them.
	in.PaymentsVersion, _ = request.Version(c)
	if p.PaymentsVersion != nil {
		in.PaymentsVersion = *p.PaymentsVersion
	}
	in.Filter = p.Filter
	in.MTLS = p.MTLS
	in.Signing.Algorithm = p.SignatureAlgorithm
	if p.Secret != nil {
		in.Signing.Secret = *p.Secret
	}
	if p.RateLimit != nil && *p.RateLimit > 0 {
		in.RateLimit = p.RateLimit
	}
	w, secret, err := a.Ops.CreateWebhook(c.UserContext(), request.Actor(c), in)
	if err != nil {
		return reply.Webhook(err, "")
	}
	out := w.JSON(a.Store.Now())
	if secret != "" {
		out.Secret = &secret
	}
	c.Location("/api/v1/webhooks/" + w.ID)
	return c.Status(http.StatusCreated).JSON(out)
}

// ListWebhooks handles GET /api/v1/webhooks: at most 20, so one page.
func (a *API) ListWebhooks(c *fiber.Ctx) error {
	hooks, err := a.Store.Webhooks(c.UserContext(), request.Scope(c))
	if err != nil {
		return err
	}
	now := a.Store.Now()
	data := make([]apimodel.Webhook, len(hooks))
	for i := range hooks {
		data[i] = hooks[i].JSON(now)
	}
	return c.JSON(listBody[apimodel.Webhook]{Object: "list", URL: "/api/v1/webhooks", Data: data})
}

// GetWebhook handles GET /api/v1/webhooks/{id}.
func (a *API) GetWebhook(c *fiber.Ctx) error {
	id, err := webhookID(c)
	if err != nil {
		return err
	}
	w, err := a.Store.Webhook(c.UserContext(), request.Scope(c), id)
	if err != nil {
		return reply.Webhook(err, id)
	}
	return c.JSON(w.JSON(a.Store.Now()))
}

// UpdateWebhook handles POST /api/v1/webhooks/{id}.
func (a *API) UpdateWebhook(c *fiber.Ctx) error {
	id, err := webhookID(c)
	if err != nil {
		return err
	}
	o, apiErr := request.Body(c, webhookUpdateFields...)
	if apiErr != nil {
		return apiErr
	}
	p, apiErr := parseWebhookParams(o, false)
	if apiErr != nil {
		return apiErr
	}
	w, err := a.Ops.UpdateWebhook(c.UserContext(), request.Actor(c), request.Scope(c), id, store.WebhookUpdate{
		Name: p.Name, URL: p.URL, APIVersion: p.APIVersion, Events: p.Events, Enabled: p.Enabled, RateLimit: p.RateLimit,
		Ordered: p.Ordered, ForwardTrace: p.ForwardTrace, PaymentsVersion: p.PaymentsVersion, Filter: p.Filter, RemoveFilter: p.RemoveFilter, MTLS: p.MTLS, RemoveMTLS: p.RemoveMTLS,
	})
	if err != nil {
		return reply.Webhook(err, id)
	}
	return c.JSON(w.JSON(a.Store.Now()))
}

// deletedJSON answers a delete (its fields in the order the API has
// always written them).
type deletedJSON struct {
	Deleted bool   `json:"deleted"`
	ID      string `json:"id"`
	Object  string `json:"object"`
}

// DeleteWebhook handles DELETE /api/v1/webhooks/{id}.
func (a *API) DeleteWebhook(c *fiber.Ctx) error {
	id, err := webhookID(c)
	if err != nil {
		return err
	}
	if err := a.Ops.DeleteWebhook(c.UserContext(), request.Actor(c), request.Scope(c), id); err != nil {
		return reply.Webhook(err, id)
	}
	return c.JSON(deletedJSON{ID: id, Object: "webhook", Deleted: true})
}

// RotateWebhookSecret handles POST /api/v1/webhooks/{id}/rotate_secret.
func (a *API) RotateWebhookSecret(c *fiber.Ctx) error {
	id, err := webhookID(c)
	if err != nil {
		return err
	}
	o, apiErr := request.OptionalBody(c, "secret", "signature_algorithm")
	if apiErr != nil {
		return apiErr
	}
	var custom, algorithm string
	for _, f := range []struct {
		name string
		dst  *string
	}{{"secret", &custom}, {"signature_algorithm", &algorithm}} {
		if o.Present(f.name) {
			if *f.dst, apiErr = o.Str(f.name, ruledByTheOperation); apiErr != nil {
				return apiErr
			}
		}
	}
	w, secret, err := a.Ops.RotateWebhookSecret(c.UserContext(), request.Actor(c), request.Scope(c), id, custom, algorithm)
	if err != nil {
		return reply.Webhook(err, id)
	}
	out := w.JSON(a.Store.Now())
	if secret != "" {
		out.Secret = &secret
	}
	return c.JSON(out)
}

// testSendJSON is the answer of a "send test".
type testSendJSON struct {
	Object    string           `json:"object"`
	WebhookID string           `json:"webhook_id"`
	Success   bool             `json:"success"`
	Status    *int             `json:"status"`
	LatencyMS int64            `json:"latency_ms"`
	Attempt   apimodel.Attempt `json:"attempt"`
}

// TestWebhook handles POST /api/v1/webhooks/{id}/test: it sends a sample
// event now and answers with what the receiver did.
func (a *API) TestWebhook(c *fiber.Ctx) error {
	id, err := webhookID(c)
	if err != nil {
		return err
	}
	o, apiErr := request.OptionalBody(c, "event_type")
	if apiErr != nil {
		return apiErr
	}
	w, err := a.Store.Webhook(c.UserContext(), request.Scope(c), id)
	if err != nil {
		return reply.Webhook(err, id)
	}
	eventType := w.TestEventType()
	if o.Present("event_type") {
		if eventType, apiErr = o.Str("event_type", 64); apiErr != nil {
			return apiErr
		}
		if !slices.Contains(store.EventTypes, eventType) {
			return reply.InvalidParam("parameter_invalid", "event_type", "Unknown event type %q.", eventType)
		}
	}
	res, err := a.Ops.SendTest(c.UserContext(), request.Actor(c), w, eventType)
	if err != nil {
		return err
	}
	return c.JSON(testSendJSON{
		Object: "webhook_test", WebhookID: w.ID, Success: res.Success, Status: res.Attempt.ResponseStatus,
		LatencyMS: res.Latency.Milliseconds(), Attempt: res.Attempt.JSON(),
	})
}
