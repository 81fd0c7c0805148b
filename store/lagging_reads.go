package store

import (
	"context"
	"time"
)

// The reads that may come from the replica (replica.go) when their context
// allows it (MayLag): the dashboard's and support's lists and searches.
// Each is its unexported namesake, run through lagging. Balances, ledgers,
// a payment's own page and every read of an operation stay on the primary.

// ListPayments: see listPayments.
func (s *Store) ListPayments(ctx context.Context, params PaymentListParams) (page []Payment, more bool, err error) {
	err = s.lagging(ctx, func(ctx context.Context) error {
		page, more, err = s.listPayments(ctx, params)
		return err
	})
	return page, more, err
}

// SearchPayments: see searchPayments.
func (s *Store) SearchPayments(ctx context.Context, q string, limit int) (found []SupportResult, err error) {
	err = s.lagging(ctx, func(ctx context.Context) error {
		found, err = s.searchPayments(ctx, q, limit)
		return err
	})
	return found, err
}

// DeliveryConsole: see deliveryConsole.
func (s *Store) DeliveryConsole(ctx context.Context, f DeliveryFilter) (rows []DeliveryRow, more bool, err error) {
	err = s.lagging(ctx, func(ctx context.Context) error {
		rows, more, err = s.deliveryConsole(ctx, f)
		return err
	})
	return rows, more, err
}

// LastDeliveries: see lastDeliveries.
func (s *Store) LastDeliveries(ctx context.Context, webhookIDs []string) (last map[string]Delivery, err error) {
	err = s.lagging(ctx, func(ctx context.Context) error {
		last, err = s.lastDeliveries(ctx, webhookIDs)
		return err
	})
	return last, err
}

// WebhooksHealth: see webhooksHealth.
func (s *Store) WebhooksHealth(ctx context.Context, webhookIDs []string, since time.Time) (health map[string]WebhookHealth, err error) {
	err = s.lagging(ctx, func(ctx context.Context) error {
		health, err = s.webhooksHealth(ctx, webhookIDs, since)
		return err
	})
	return health, err
}

// ListSubscriptions: see listSubscriptions.
func (s *Store) ListSubscriptions(ctx context.Context, scope Scope, limit int, startingAfter string) (page []Subscription, more bool, err error) {
	err = s.lagging(ctx, func(ctx context.Context) error {
		page, more, err = s.listSubscriptions(ctx, scope, limit, startingAfter)
		return err
	})
	return page, more, err
}

// SearchSubscriptions: see searchSubscriptions.
func (s *Store) SearchSubscriptions(ctx context.Context, q string, limit int) (found []SupportSubscription, err error) {
	err = s.lagging(ctx, func(ctx context.Context) error {
		found, err = s.searchSubscriptions(ctx, q, limit)
		return err
	})
	return found, err
}

// AuditTrail: see auditTrail.
func (s *Store) AuditTrail(ctx context.Context, f AuditFilter) (rows []AuditRow, more bool, err error) {
	err = s.lagging(ctx, func(ctx context.Context) error {
		rows, more, err = s.auditTrail(ctx, f)
		return err
	})
	return rows, more, err
}

// OverviewSeries: see overviewSeries.
func (s *Store) OverviewSeries(ctx context.Context, scope Scope, from, to time.Time, step OverviewStep, tz *time.Location) (points []OverviewPoint, err error) {
	err = s.lagging(ctx, func(ctx context.Context) error {
		points, err = s.overviewSeries(ctx, scope, from, to, step, tz)
		return err
	})
	return points, err
}

// WebhookDays: see webhookDays.
func (s *Store) WebhookDays(ctx context.Context, scope Scope, from, to time.Time, tz *time.Location) (days []WebhookDay, err error) {
	err = s.lagging(ctx, func(ctx context.Context) error {
		days, err = s.webhookDays(ctx, scope, from, to, tz)
		return err
	})
	return days, err
}

// ListPayers: see listPayers.
func (s *Store) ListPayers(ctx context.Context, p PayerListParams) (page []Payer, more bool, err error) {
	err = s.lagging(ctx, func(ctx context.Context) error {
		page, more, err = s.listPayers(ctx, p)
		return err
	})
	return page, more, err
}
