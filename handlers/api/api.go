// Package api serves the JSON API under /api/v1: one file per resource with
// its parameters, the test-mode helpers, and the OpenAPI document
// (openapi.go builds it from the rules the handlers validate with).
package api

import (
	"log/slog"
	"time"

	"payments/metrics"
	"payments/operations"
	"payments/store"
	"payments/store/eventfeed"
)

// API serves /api/v1.
type API struct {
	Store *store.Store
	// Ops makes every change the API is asked for.
	Ops *operations.Operations
	Log *slog.Logger
	// ChargeWait bounds how long a live creation waits for the PSP to
	// register its charge (8 s when zero).
	ChargeWait time.Duration
	// Closing ends event streams when the server shuts down (nil: never).
	Closing <-chan struct{}
	// Streams shares one reader of each account's events among its event
	// streams and bounds how many are open.
	Streams *eventfeed.Hub
	// Metrics counts refusals (nil: none).
	Metrics *metrics.Metrics
	// EventTypes is GET /api/v1/event_types's body: the event catalog with
	// each type's payload schemas (built once, from the OpenAPI document).
	EventTypes func() ([]byte, error)
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
