package handlers

import (
	"context"
	"errors"
	"slices"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"payments/store"
)

var idListQuery = []string{"limit", "status", "starting_after"}

// parseIDList reads limit, status (one of statuses) and starting_after for a
// list of objects with time-ordered ids. exists, when given, checks the
// cursor names an object the caller can see, so a stale or foreign cursor is
// an error rather than a silently wrong page.
func parseIDList(c *fiber.Ctx, kind string, statuses []string,
	exists func(ctx context.Context, scope store.Scope, id string) error,
) (store.IDListParams, error) {
	params := store.IDListParams{Scope: scope(c)}
	var apiErr *Error
	if params.Limit, params.Status, apiErr = parseListQuery(c, idListQuery, statuses); apiErr != nil {
		return params, apiErr
	}
	if v := c.Query("starting_after"); v != "" && exists != nil {
		if err := exists(c.UserContext(), params.Scope, v); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return params, InvalidParam("resource_missing", "starting_after", "No such %s: '%s'", kind, truncateRef(v))
			}
			return params, err
		}
	}
	params.StartingAfter = c.Query("starting_after")
	return params, nil
}

// parseListQuery checks every query parameter is one of allowed and reads
// what all lists share: limit (defaultListLimit when absent) and status
// (one of statuses, "" when absent).
func parseListQuery(c *fiber.Ctx, allowed, statuses []string) (int, string, *Error) {
	var apiErr *Error
	c.Context().QueryArgs().VisitAll(func(k, _ []byte) {
		if apiErr == nil && !slices.Contains(allowed, string(k)) {
			apiErr = InvalidParam("parameter_unknown", string(k), "Received unknown query parameter: %s. Allowed: %v.", k, allowed)
		}
	})
	if apiErr != nil {
		return 0, "", apiErr
	}
	limit := defaultListLimit
	if v := c.Query("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxListLimit {
			return 0, "", InvalidParam("parameter_invalid", "limit", "limit must be an integer from 1 to %d.", maxListLimit)
		}
		limit = n
	}
	status := c.Query("status")
	if status != "" && !slices.Contains(statuses, status) {
		return 0, "", InvalidParam("parameter_invalid", "status", "status must be one of %v.", statuses)
	}
	return limit, status, nil
}

// enum reads a string field that must be one of values.
func (o jsonObject) enum(name string, values []string) (string, *Error) {
	s, apiErr := o.str(name, 64)
	if apiErr != nil {
		return "", apiErr
	}
	if !slices.Contains(values, s) {
		return "", InvalidParam("parameter_invalid", o.param(name), "%s must be one of %v.", o.param(name), values)
	}
	return s, nil
}
