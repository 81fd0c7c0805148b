package api

import (
	"context"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/store"
)

// ListDisputes handles GET /api/v1/disputes.
func (a *API) ListDisputes(c *fiber.Ctx) error {
	params, err := parseIDList(c, "dispute", store.DisputeStatuses, func(ctx context.Context, scope store.Scope, id string) error {
		_, err := a.Store.Dispute(ctx, scope, id)
		return err
	})
	if err != nil {
		return err
	}
	page, hasMore, err := a.Store.ListDisputes(c.UserContext(), params)
	if err != nil {
		return err
	}
	return c.JSON(listBody[*store.Dispute]{Object: "list", URL: "/api/v1/disputes", HasMore: hasMore, Data: pointers(page)})
}

// GetDispute handles GET /api/v1/disputes/{id}.
func (a *API) GetDispute(c *fiber.Ctx) error {
	id, err := disputeID(c)
	if err != nil {
		return err
	}
	d, err := a.Store.Dispute(c.UserContext(), request.Scope(c), id)
	if err != nil {
		return reply.Dispute(err, id)
	}
	return c.JSON(d)
}
