package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/gofiber/fiber/v2"

	"payments/dispatcher"
	"payments/store"
)

// WebhookTester sends a sample event to a webhook right away.
type WebhookTester interface {
	SendTest(ctx context.Context, w *store.Webhook, eventType string) (dispatcher.TestSendResult, error)
}

func noSuchWebhook(id string) *Error { return noSuch("webhook", "id", id) }

// webhookErr maps store errors of webhook routes.
func webhookErr(err error, id string) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return noSuchWebhook(id)
	case errors.Is(err, store.ErrWebhookLimit):
		return &Error{Status: http.StatusConflict, Type: TypeInvalidRequest, Code: "webhook_limit_reached",
			Message: fmt.Sprintf("An account can have at most %d webhooks (test and live together). Delete one to add another.", store.MaxWebhooksPerAccount)}
	}
	return err
}

// optionalParams reads the body of a POST whose parameters are all
// optional: an empty body stands for {}; any other must be a JSON object
// with only the allowed fields.
func optionalParams(c *fiber.Ctx, allowed ...string) (jsonObject, *Error) {
	body := c.Body()
	if len(body) == 0 {
		return jsonObject{fields: map[string]json.RawMessage{}}, nil
	}
	if apiErr := requireJSON(c); apiErr != nil {
		return jsonObject{}, apiErr
	}
	o, apiErr := decodeBody(body)
	if apiErr != nil {
		return jsonObject{}, apiErr
	}
	return o, o.rejectUnknown(allowed...)
}

// CreateWebhook handles POST /api/v1/webhooks.
func (a *API) CreateWebhook(c *fiber.Ctx) error {
	if apiErr := requireJSON(c); apiErr != nil {
		return apiErr
	}
	p, apiErr := parseWebhookParams(c.Body(), true, a.AllowPrivateNetworks)
	if apiErr != nil {
		return apiErr
	}
	in := store.NewWebhook{Scope: scope(c), Name: defaultWebhookName, URL: *p.URL, APIVersion: "v2", Events: p.Events, Enabled: true}
	if p.Name != nil {
		in.Name = *p.Name
	}
	if p.APIVersion != nil {
		in.APIVersion = *p.APIVersion
	}
	if p.Enabled != nil {
		in.Enabled = *p.Enabled
	}
	if p.Secret != nil {
		in.Secret = *p.Secret
	}
	w, secret, err := a.Store.CreateWebhook(c.UserContext(), in)
	if err != nil {
		return webhookErr(err, "")
	}
	out := newWebhookJSON(w, a.Store.Now())
	out.Secret = &secret
	c.Location("/api/v1/webhooks/" + w.ID)
	return c.Status(http.StatusCreated).JSON(out)
}

// ListWebhooks handles GET /api/v1/webhooks: at most 20, so one page.
func (a *API) ListWebhooks(c *fiber.Ctx) error {
	hooks, err := a.Store.Webhooks(c.UserContext(), scope(c))
	if err != nil {
		return err
	}
	now := a.Store.Now()
	data := make([]webhookJSON, len(hooks))
	for i := range hooks {
		data[i] = newWebhookJSON(&hooks[i], now)
	}
	return c.JSON(listBody[webhookJSON]{Object: "list", URL: "/api/v1/webhooks", Data: data})
}

// GetWebhook handles GET /api/v1/webhooks/{id}.
func (a *API) GetWebhook(c *fiber.Ctx) error {
	id := pathRef(c, "id")
	w, err := a.Store.Webhook(c.UserContext(), scope(c), id)
	if err != nil {
		return webhookErr(err, id)
	}
	return c.JSON(newWebhookJSON(w, a.Store.Now()))
}

// UpdateWebhook handles POST /api/v1/webhooks/{id}.
func (a *API) UpdateWebhook(c *fiber.Ctx) error {
	id := pathRef(c, "id")
	if apiErr := requireJSON(c); apiErr != nil {
		return apiErr
	}
	p, apiErr := parseWebhookParams(c.Body(), false, a.AllowPrivateNetworks)
	if apiErr != nil {
		return apiErr
	}
	w, err := a.Store.UpdateWebhook(c.UserContext(), scope(c), id, store.WebhookUpdate{
		Name: p.Name, URL: p.URL, APIVersion: p.APIVersion, Events: p.Events, Enabled: p.Enabled,
	})
	if err != nil {
		return webhookErr(err, id)
	}
	return c.JSON(newWebhookJSON(w, a.Store.Now()))
}

// DeleteWebhook handles DELETE /api/v1/webhooks/{id}.
func (a *API) DeleteWebhook(c *fiber.Ctx) error {
	id := pathRef(c, "id")
	if err := a.Store.DeleteWebhook(c.UserContext(), scope(c), id); err != nil {
		return webhookErr(err, id)
	}
	return c.JSON(fiber.Map{"id": id, "object": "webhook", "deleted": true})
}

// RotateWebhookSecret handles POST /api/v1/webhooks/{id}/rotate_secret.
func (a *API) RotateWebhookSecret(c *fiber.Ctx) error {
	id := pathRef(c, "id")
	o, apiErr := optionalParams(c, "secret")
	if apiErr != nil {
		return apiErr
	}
	var custom string
	if o.present("secret") {
		if custom, apiErr = parseCustomSecret(o); apiErr != nil {
			return apiErr
		}
	}
	w, secret, err := a.Store.RotateWebhookSecret(c.UserContext(), scope(c), id, custom)
	if err != nil {
		return webhookErr(err, id)
	}
	out := newWebhookJSON(w, a.Store.Now())
	out.Secret = &secret
	return c.JSON(out)
}

// testEventType is the sample a "send test" sends unless told otherwise:
// payment.paid when subscribed (the event integrators act on), else the first.
func testEventType(w *store.Webhook) string {
	if slices.Contains(w.Events, store.EventPaymentPaid) {
		return store.EventPaymentPaid
	}
	return w.Events[0]
}

// testSendJSON is the answer of a "send test".
type testSendJSON struct {
	Object    string      `json:"object"`
	WebhookID string      `json:"webhook_id"`
	Success   bool        `json:"success"`
	Status    *int        `json:"status"`
	LatencyMS int64       `json:"latency_ms"`
	Attempt   attemptJSON `json:"attempt"`
}

// TestWebhook handles POST /api/v1/webhooks/{id}/test: it sends a sample
// event now and answers with what the receiver did.
func (a *API) TestWebhook(c *fiber.Ctx) error {
	id := pathRef(c, "id")
	o, apiErr := optionalParams(c, "event_type")
	if apiErr != nil {
		return apiErr
	}
	w, err := a.Store.Webhook(c.UserContext(), scope(c), id)
	if err != nil {
		return webhookErr(err, id)
	}
	eventType := testEventType(w)
	if o.present("event_type") {
		if eventType, apiErr = o.str("event_type", 64); apiErr != nil {
			return apiErr
		}
		if !slices.Contains(store.EventTypes, eventType) {
			return InvalidParam("parameter_invalid", "event_type", "Unknown event type %q.", eventType)
		}
	}
	res, err := a.Tester.SendTest(c.UserContext(), w, eventType)
	if err != nil {
		return err
	}
	return c.JSON(testSendJSON{
		Object: "webhook_test", WebhookID: w.ID, Success: res.Success, Status: res.Attempt.ResponseStatus,
		LatencyMS: res.Latency.Milliseconds(), Attempt: newAttemptJSON(&res.Attempt),
	})
}

var deliveryStatuses = []string{store.DeliveryPending, store.DeliverySucceeded, store.DeliveryFailed}

// ListDeliveries handles GET /api/v1/webhooks/{id}/deliveries.
func (a *API) ListDeliveries(c *fiber.Ctx) error {
	id := pathRef(c, "id")
	list, err := parseIDList(c, "delivery", deliveryStatuses, nil)
	if err != nil {
		return err
	}
	params := store.DeliveryListParams{Scope: list.Scope, WebhookID: id, Limit: list.Limit, Status: list.Status,
		StartingAfter: list.StartingAfter}
	if _, err := a.Store.Webhook(c.UserContext(), params.Scope, id); err != nil {
		return webhookErr(err, id)
	}
	page, hasMore, err := a.Store.Deliveries(c.UserContext(), params)
	if err != nil {
		return err
	}
	data := make([]deliveryJSON, len(page))
	for i := range page {
		data[i] = newDeliveryJSON(&page[i])
	}
	return c.JSON(listBody[deliveryJSON]{Object: "list", URL: "/api/v1/webhooks/" + id + "/deliveries", HasMore: hasMore, Data: data})
}

// GetDelivery handles GET /api/v1/webhooks/{id}/deliveries/{delivery_id}.
func (a *API) GetDelivery(c *fiber.Ctx) error {
	return a.deliveryAction(c, a.Store.Delivery)
}

// ResendDelivery handles POST /api/v1/webhooks/{id}/deliveries/{delivery_id}/resend.
func (a *API) ResendDelivery(c *fiber.Ctx) error {
	return a.deliveryAction(c, a.Store.ResendDelivery)
}

// deliveryAction runs a store call on the delivery named by the path and
// answers with the delivery.
func (a *API) deliveryAction(c *fiber.Ctx,
	action func(ctx context.Context, scope store.Scope, webhookID, deliveryID string) (*store.Delivery, error),
) error {
	id, deliveryID := pathRef(c, "id"), pathRef(c, "delivery_id")
	d, err := action(c.UserContext(), scope(c), id, deliveryID)
	if errors.Is(err, store.ErrNotFound) {
		return noSuch("delivery", "delivery_id", deliveryID)
	}
	if err != nil {
		return err
	}
	return c.JSON(newDeliveryJSON(d))
}

// ResendFailed handles POST /api/v1/webhooks/{id}/resend_failed: every
// failed delivery created since `since` (unix seconds) is queued again.
func (a *API) ResendFailed(c *fiber.Ctx) error {
	id := pathRef(c, "id")
	if apiErr := requireJSON(c); apiErr != nil {
		return apiErr
	}
	o, apiErr := decodeBody(c.Body())
	if apiErr != nil {
		return apiErr
	}
	if apiErr := o.rejectUnknown("since"); apiErr != nil {
		return apiErr
	}
	if !o.present("since") {
		return o.missing("since")
	}
	outOfRange := func() *Error {
		return InvalidParam("parameter_invalid", "since", "since must be a Unix timestamp in seconds.")
	}
	since, apiErr := o.integerBounded("since", 0, 253402300799, outOfRange, outOfRange)
	if apiErr != nil {
		return apiErr
	}
	n, err := a.Store.ResendFailedSince(c.UserContext(), scope(c), id, time.Unix(since, 0))
	if err != nil {
		return webhookErr(err, id)
	}
	return c.JSON(fiber.Map{"object": "webhook_resend", "webhook_id": id, "requeued": n})
}
