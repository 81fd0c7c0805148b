package api

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/store"
)

// Bounds of every list.
const (
	DefaultListLimit = 10
	MaxListLimit     = 100
	// maxUnixSeconds is 9999-12-31T23:59:59Z, the last time a timestamp
	// parameter may name.
	maxUnixSeconds = 253402300799
)

var idListQuery = []string{"limit", "status", "starting_after"}

// parseIDList reads limit, status (one of statuses) and starting_after for a
// list of objects with time-ordered ids (and filters, the query parameters
// the caller reads itself). exists, when given, checks the
// cursor names an object the caller can see, so a stale or foreign cursor is
// an error rather than a silently wrong page.
func parseIDList(c *fiber.Ctx, kind string, statuses []string,
	exists func(ctx context.Context, scope store.Scope, id string) error, filters ...string,
) (store.IDListParams, error) {
	params := store.IDListParams{Scope: request.Scope(c)}
	var apiErr *reply.Error
	if params.Limit, params.Status, apiErr = parseListQuery(c, append(filters, idListQuery...), statuses); apiErr != nil {
		return params, apiErr
	}
	if v := c.Query("starting_after"); v != "" && exists != nil {
		if err := exists(c.UserContext(), params.Scope, v); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return params, reply.InvalidParam("resource_missing", "starting_after", "No such %s: '%s'", kind, reply.Truncate(v))
			}
			return params, err
		}
	}
	params.StartingAfter = c.Query("starting_after")
	return params, nil
}

// parseListQuery checks every query parameter is one of allowed and reads
// what all lists share: limit (DefaultListLimit when absent) and status
// (one of statuses, "" when absent).
func parseListQuery(c *fiber.Ctx, allowed, statuses []string) (int, string, *reply.Error) {
	var apiErr *reply.Error
	c.Context().QueryArgs().VisitAll(func(k, _ []byte) {
		if apiErr == nil && !slices.Contains(allowed, string(k)) {
			apiErr = reply.InvalidParam("parameter_unknown", string(k), "Received unknown query parameter: %s. Allowed: %v.", k, allowed)
		}
	})
	if apiErr != nil {
		return 0, "", apiErr
	}
	limit := DefaultListLimit
	if v := c.Query("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxListLimit {
			return 0, "", reply.InvalidParam("parameter_invalid", "limit", "limit must be an integer from 1 to %d.", MaxListLimit)
		}
		limit = n
	}
	status := c.Query("status")
	if status != "" && !slices.Contains(statuses, status) {
		return 0, "", reply.InvalidParam("parameter_invalid", "status", "status must be one of %v.", statuses)
	}
	return limit, status, nil
}

// parseCreatedBounds reads created[gte] and created[lte] (Unix seconds);
// created[lte] counts the whole second it names.
func parseCreatedBounds(c *fiber.Ctx) (gte, lte *time.Time, apiErr *reply.Error) {
	for _, bound := range []struct {
		name string
		dst  **time.Time
	}{{"created[gte]", &gte}, {"created[lte]", &lte}} {
		v := c.Query(bound.name)
		if v == "" {
			continue
		}
		secs, err := strconv.ParseInt(v, 10, 64)
		if err != nil || secs < 0 || secs > maxUnixSeconds {
			return nil, nil, reply.InvalidParam("parameter_invalid", bound.name, "%s must be a Unix timestamp in seconds.", bound.name)
		}
		t := time.Unix(secs, 0).UTC()
		*bound.dst = &t
	}
	if lte != nil {
		end := lte.Add(time.Second - time.Millisecond)
		lte = &end
	}
	return gte, lte, nil
}
