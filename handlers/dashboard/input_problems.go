package dashboard

import (
	"errors"
	"strings"

	"github.com/gofiber/fiber/v2"

	"payments/operations"
)

// refusedFields puts an operation's refused inputs beside their fields, in
// the page's words (events[2] is the events field); false when err
// refuses no input.
func refusedFields(c *fiber.Ctx, err error, fields map[string]string) bool {
	var many operations.InputErrors
	var one *operations.InputError
	switch {
	case errors.As(err, &many):
	case errors.As(err, &one):
		many = operations.InputErrors{one}
	default:
		return false
	}
	for _, e := range many {
		field, _, _ := strings.Cut(e.Param, "[")
		if _, taken := fields[field]; taken {
			continue
		}
		if e.Words == "" {
			fields[field] = e.Message
			continue
		}
		fields[field] = t(c, e.Words, e.Args...)
	}
	return true
}
