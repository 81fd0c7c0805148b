package api

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/store"
	"payments/store/apimodel"
)

// ListDeliveries handles GET /api/v1/webhooks/{id}/deliveries.
func (a *API) ListDeliveries(c *fiber.Ctx) error {
	id, err := webhookID(c)
	if err != nil {
		return err
	}
	list, err := parseIDList(c, "delivery", store.DeliveryFilters, nil)
	if err != nil {
		return err
	}
	params := store.DeliveryListParams{Scope: list.Scope, WebhookID: id, Limit: list.Limit, Status: list.Status,
		StartingAfter: list.StartingAfter}
	if _, err := a.Store.Webhook(c.UserContext(), params.Scope, id); err != nil {
		return reply.Webhook(err, id)
	}
	page, hasMore, err := a.Store.Deliveries(c.UserContext(), params)
	if err != nil {
		return err
	}
	data := make([]apimodel.Delivery, len(page))
	for i := range page {
		data[i] = page[i].JSON()
	}
	return c.JSON(listBody[apimodel.Delivery]{Object: "list", URL: "/api/v1/webhooks/" + id + "/deliveries", HasMore: hasMore, Data: data})
}

// GetDelivery handles GET /api/v1/webhooks/{id}/deliveries/{delivery_id}.
func (a *API) GetDelivery(c *fiber.Ctx) error {
	return a.deliveryAction(c, func(ctx context.Context, _ store.Actor, scope store.Scope, webhookID, id string) (*store.Delivery, error) {
		return a.Store.Delivery(ctx, scope, webhookID, id)
	})
}

// ResendDelivery handles POST /api/v1/webhooks/{id}/deliveries/{delivery_id}/resend.
func (a *API) ResendDelivery(c *fiber.Ctx) error {
	if _, apiErr := request.OptionalBody(c); apiErr != nil {
		return apiErr // it takes no parameters: a body that sends some is refused, not ignored
	}
	return a.deliveryAction(c, a.Ops.ResendDelivery)
}

// deliveryAction runs a store call on the delivery named by the path and
// answers with the delivery.
func (a *API) deliveryAction(c *fiber.Ctx,
	action func(ctx context.Context, who store.Actor, scope store.Scope, webhookID, deliveryID string) (*store.Delivery, error),
) error {
	id, err := deliveryID(c)
	if err != nil {
		return err
	}
	hook, ok := request.Param(c, "id")
	if !ok {
		return reply.NoSuch("delivery", "delivery_id", id)
	}
	d, err := action(c.UserContext(), request.Actor(c), request.Scope(c), hook, id)
	if err != nil {
		return reply.NoSuchDelivery(err, id)
	}
	return c.JSON(d.JSON())
}

// resendJSON answers a resend of failed deliveries (its fields in the
// order the API has always written them).
type resendJSON struct {
	Object    string `json:"object"`
	Requeued  int    `json:"requeued"`
	WebhookID string `json:"webhook_id"`
}

// ResendFailed handles POST /api/v1/webhooks/{id}/resend_failed: every
// failed delivery created since `since` (unix seconds) is queued again.
func (a *API) ResendFailed(c *fiber.Ctx) error {
	id, err := webhookID(c)
	if err != nil {
		return err
	}
	o, apiErr := request.Body(c, "since")
	if apiErr != nil {
		return apiErr
	}
	if !o.Present("since") {
		return o.Missing("since")
	}
	outOfRange := func() *reply.Error {
		return reply.InvalidParam("parameter_invalid", "since", "since must be a Unix timestamp in seconds.")
	}
	since, apiErr := o.IntegerBounded("since", 0, maxUnixSeconds, outOfRange, outOfRange)
	if apiErr != nil {
		return apiErr
	}
	n, err := a.Ops.ResendFailedSince(c.UserContext(), request.Actor(c), request.Scope(c), id, time.Unix(since, 0))
	if err != nil {
		return reply.Webhook(err, id)
	}
	return c.JSON(resendJSON{Object: "webhook_resend", WebhookID: id, Requeued: n})
}
