package web

import (
	"net/http"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
)

// refuseHostileBytes answers 400, in the error shape, a request whose path,
// query or headers hold bytes that are not text (invalid UTF-8, NUL and
// other control characters): no route takes them, and PostgreSQL would
// refuse them with an error rather than a miss. It runs before routing, so
// no handler and no query ever sees them.
func refuseHostileBytes(c *fiber.Ctx) error {
	if !request.IsText(c.Request().URI().Path(), false) || !request.IsText(c.Request().URI().PathOriginal(), false) {
		return reply.InvalidRequest(http.StatusBadRequest, "path_invalid",
			"The path holds bytes that are not text (invalid UTF-8 or control characters).")
	}
	var badHeader, badQuery string
	c.Request().Header.VisitAll(func(name, value []byte) {
		if badHeader == "" && (!request.IsText(value, false) || !request.IsText(name, false)) {
			badHeader = request.Quotable(string(name))
		}
	})
	if badHeader != "" {
		return reply.InvalidParam("header_invalid", badHeader,
			"The %s header holds bytes that are not text (invalid UTF-8 or control characters).", badHeader)
	}
	c.Context().QueryArgs().VisitAll(func(key, value []byte) {
		if badQuery == "" && (!request.IsText(key, false) || !request.IsText(value, true)) {
			badQuery = request.Quotable(string(key))
		}
	})
	if badQuery != "" {
		return reply.InvalidParam("parameter_invalid", badQuery, "The query parameter %s holds bytes that are not text.", badQuery)
	}
	return c.Next()
}
