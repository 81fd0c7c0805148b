package dashboard

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/views"
)

// localDays reads a filter's since and until, dates (YYYY-MM-DD) that are
// local days in the account's zone, until inclusive, as [from, before);
// either is zero when not given.
func localDays(c *fiber.Ctx, since, until string) (from, before time.Time, err error) {
	tz := views.LocaleOf(c.UserContext()).TZ
	if since != "" {
		if from, err = time.ParseInLocation(time.DateOnly, since, tz); err != nil {
			return from, before, reply.InvalidParam("since_invalid", "since", "since must be a date (YYYY-MM-DD).")
		}
	}
	if until != "" {
		day, err := time.ParseInLocation(time.DateOnly, until, tz)
		if err != nil {
			return from, before, reply.InvalidParam("until_invalid", "until", "until must be a date (YYYY-MM-DD).")
		}
		before = day.AddDate(0, 0, 1)
	}
	return from, before, nil
}
