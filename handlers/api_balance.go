package handlers

import (
	"net/http"

	"github.com/gofiber/fiber/v2"
)

// GetBalance handles GET /api/v1/balance: the key's account and mode.
func (a *API) GetBalance(c *fiber.Ctx) error {
	b, err := a.Store.Balance(c.UserContext(), scope(c))
	if err != nil {
		return err
	}
	return c.JSON(b)
}

// balanceInsufficient is the 409 for a debit the available balance cannot cover.
func balanceInsufficient() *Error {
	return InvalidRequest(http.StatusConflict, "balance_insufficient",
		"The available balance does not cover this amount. GET /api/v1/balance shows what is available.")
}
