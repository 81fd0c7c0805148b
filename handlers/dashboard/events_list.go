package dashboard

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/store"
	"payments/views"
)

// Events handles GET /dashboard/events: every event of the account (Eventos),
// newest first, each with its deliveries, filtered by type and by local
// days in the account's zone, 25 a page by cursor.
func (d *Dashboard) Events(c *fiber.Ctx) error {
	ctx := c.UserContext()
	scope := dashScope(c)
	f := views.EventsFilter{Type: c.Query("type"), Since: c.Query("since"), Until: c.Query("until")}
	p := store.EventListParams{Scope: scope, Limit: dashPageSize}
	if f.Type != "" {
		if !slices.Contains(store.EventTypes, f.Type) {
			return reply.InvalidParam("parameter_invalid", "type", "type must be one of %v.", store.EventTypes)
		}
		p.Types = []string{f.Type}
	}
	from, before, err := localDays(c, f.Since, f.Until)
	if err != nil {
		return err
	}
	if !from.IsZero() {
		p.CreatedGTE = &from
	}
	if !before.IsZero() {
		// ListEvents' upper bound is inclusive; events keep milliseconds.
		last := before.Add(-time.Millisecond)
		p.CreatedLTE = &last
	}
	if after := c.Query("starting_after"); after != "" {
		if _, err := d.Store.EventByID(ctx, scope, after); err != nil {
			return reply.InvalidParam("resource_missing", "starting_after", "No such event: '%s'", reply.Truncate(after))
		}
		p.StartingAfter = after
	}
	events, more, err := d.Store.ListEvents(ctx, p)
	if err != nil {
		return err
	}
	eventIDs := make([]string, len(events))
	for i, e := range events {
		eventIDs[i] = e.ID
	}
	byEvent, err := d.eventDeliveries(ctx, scope, eventIDs)
	if err != nil {
		return err
	}
	page := views.EventsPage{Nav: d.nav(c, "events"), Types: store.EventTypes, Filter: f}
	for _, e := range events {
		row := views.EventRow{ID: e.ID, Type: e.Type, CreatedAt: when(c, e.CreatedAt), Object: e.ObjectID, ObjectURL: objectURL(e)}
		row.Deliveries = byEvent[e.ID]
		for _, dl := range row.Deliveries {
			if dl.Status == store.DeliverySucceeded {
				row.Delivered++
			} else {
				row.Failing++
			}
		}
		page.Rows = append(page.Rows, row)
	}
	if more {
		q := filterQuery(map[string]string{"type": f.Type, "since": f.Since, "until": f.Until})
		q.Set("starting_after", page.Rows[len(page.Rows)-1].ID)
		page.NextURL = "/dashboard/events?" + q.Encode()
	}
	return reply.Page(c, http.StatusOK, views.EventsList(page))
}

// objectURL is the dashboard's page of what the event is about: its
// payment (a refund's or a dispute's too), its subscription, the payouts or
// the reports.
func objectURL(e store.Event) string {
	switch {
	case strings.HasPrefix(e.Type, "payment."):
		return "/dashboard/payments/" + e.ObjectID
	case strings.HasPrefix(e.Type, "refund."), strings.HasPrefix(e.Type, "dispute."):
		var of struct {
			PaymentID string `json:"payment_id"`
		}
		if json.Unmarshal(e.Data, &of) == nil && of.PaymentID != "" {
			return "/dashboard/payments/" + of.PaymentID
		}
	case strings.HasPrefix(e.Type, "subscription."):
		return "/dashboard/subscriptions/" + e.ObjectID
	case strings.HasPrefix(e.Type, "withdrawal."):
		return "/dashboard/withdrawals"
	case strings.HasPrefix(e.Type, "report."):
		return "/dashboard/reports"
	}
	return ""
}

// eventDeliveries are the deliveries of the events, by event, each with
// its webhook's name.
func (d *Dashboard) eventDeliveries(ctx context.Context, scope store.Scope, eventIDs []string) (map[string][]views.EventDelivery, error) {
	deliveries, err := d.Store.DeliveriesForEvents(ctx, scope, eventIDs)
	if err != nil {
		return nil, err
	}
	names, err := d.Store.WebhookNames(ctx, scope)
	if err != nil {
		return nil, err
	}
	byEvent := map[string][]views.EventDelivery{}
	for _, dl := range deliveries {
		byEvent[dl.EventID] = append(byEvent[dl.EventID], views.EventDelivery{WebhookID: dl.WebhookID, WebhookName: names[dl.WebhookID],
			DeliveryID: dl.ID, Status: dl.Status, Attempts: dl.Attempts})
	}
	return byEvent, nil
}
