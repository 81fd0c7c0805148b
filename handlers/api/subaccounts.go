package api

import (
	"errors"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/operations"
	"payments/store"
)

var createSubaccountFields = []string{"name", "document", "email", "pix_key"}

// CreateSubaccount handles POST /api/v1/subaccounts: a platform's account
// for one of its sellers, which it then acts for with Payments-Account.
func (a *API) CreateSubaccount(c *fiber.Ctx) error {
	o, apiErr := request.Body(c, createSubaccountFields...)
	if apiErr != nil {
		return apiErr
	}
	var in operations.SubaccountInput
	for _, f := range []struct {
		name string
		dst  *string
		max  int
	}{{"name", &in.Name, operations.MaxSubaccountName * 2}, {"document", &in.Document, 64}, {"email", &in.Email, store.MaxEmail}, {"pix_key", &in.PixKey, 128}} {
		if !o.Present(f.name) {
			return o.Missing(f.name)
		}
		if *f.dst, apiErr = o.Str(f.name, f.max); apiErr != nil {
			return apiErr
		}
	}
	sub, err := a.Ops.CreateSubaccount(c.UserContext(), request.Actor(c), request.Scope(c), in)
	if errors.Is(err, store.ErrNotAPlatform) {
		return reply.InvalidRequest(http.StatusBadRequest, "platform_only",
			"A subaccount has no subaccounts: call without the Payments-Account header.")
	}
	if err != nil {
		return reply.Refusal(err)
	}
	c.Location("/api/v1/subaccounts/" + sub.ID)
	return c.Status(http.StatusCreated).JSON(sub)
}

// ListSubaccounts handles GET /api/v1/subaccounts: the platform's
// subaccounts, newest first.
func (a *API) ListSubaccounts(c *fiber.Ctx) error {
	limit, _, apiErr := parseListQuery(c, []string{"limit", "starting_after"}, nil)
	if apiErr != nil {
		return apiErr
	}
	page, hasMore, err := a.Store.ListSubaccounts(c.UserContext(), request.Scope(c).AccountID, limit, c.Query("starting_after"))
	if err != nil {
		return err
	}
	return c.JSON(listBody[*store.Account]{Object: "list", URL: "/api/v1/subaccounts", HasMore: hasMore, Data: pointers(page)})
}

// GetSubaccount handles GET /api/v1/subaccounts/{id}.
func (a *API) GetSubaccount(c *fiber.Ctx) error {
	id := c.Params("id")
	sub, err := a.Store.SubaccountOf(c.UserContext(), request.Scope(c).AccountID, id)
	if errors.Is(err, store.ErrNotFound) {
		return reply.NoSuch("subaccount", "id", id)
	}
	if err != nil {
		return err
	}
	return c.JSON(sub)
}
