// Package api serves the JSON API under /api/v1: one file per resource with
// its parameters, the test-mode helpers, and the OpenAPI document
// (openapi.go builds it from the rules the handlers validate with).
package api

import (
	"log/slog"

	"payments/dispatcher"
	"payments/store"
)

// API serves /api/v1.
type API struct {
	Store *store.Store
	Log   *slog.Logger
	// Tester sends "send test" events right away.
	Tester *dispatcher.Dispatcher
	// AllowPrivateNetworks accepts http and private addresses in webhook URLs (dev/test only).
	AllowPrivateNetworks bool
}

// listBody is the envelope of every list response.
type listBody[T any] struct {
	Object  string `json:"object"`
	URL     string `json:"url"`
	HasMore bool   `json:"has_more"`
	Data    []T    `json:"data"`
}

// pointers lets a page of rows marshal through their pointer MarshalJSON.
func pointers[T any](rows []T) []*T {
	out := make([]*T, len(rows))
	for i := range rows {
		out[i] = &rows[i]
	}
	return out
}
