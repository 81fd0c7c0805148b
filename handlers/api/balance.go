package api

import (
	"github.com/gofiber/fiber/v2"

	"payments/handlers/request"
)

// GetBalance handles GET /api/v1/balance: the key's account and mode.
func (a *API) GetBalance(c *fiber.Ctx) error {
	b, err := a.Store.Balance(c.UserContext(), request.Scope(c))
	if err != nil {
		return err
	}
	return c.JSON(b)
}
