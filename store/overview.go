package store

import (
	"context"
	"fmt"
	"time"
)

// PayTimeBuckets are the upper bounds of the time-to-pay histogram's
// buckets (pay_time_bucket, migration 034); the last is unbounded.
var PayTimeBuckets = []time.Duration{30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute,
	10 * time.Minute, 30 * time.Minute, time.Hour, 6 * time.Hour, 24 * time.Hour}

// OverviewFigures are the overview's sums over some hours: charges
// created, paid (their gross amount and fees), expired and canceled;
// refunds that succeeded and disputes opened, with their amounts; paid
// charges by time to pay (PayTimeBuckets).
type OverviewFigures struct {
	Created       int64   `bun:"created"`
	Paid          int64   `bun:"paid"`
	GrossCents    int64   `bun:"gross_cents"`
	FeeCents      int64   `bun:"fee_cents"`
	Expired       int64   `bun:"expired"`
	Canceled      int64   `bun:"canceled"`
	Refunds       int64   `bun:"refunds"`
	RefundedCents int64   `bun:"refunded_cents"`
	Disputes      int64   `bun:"disputes"`
	DisputedCents int64   `bun:"disputed_cents"`
	PayTimes      []int64 `bun:"pay_times,array"`
}

// Add adds o's figures to f's.
func (f *OverviewFigures) Add(o *OverviewFigures) {
	f.Created += o.Created
	f.Paid += o.Paid
	f.GrossCents += o.GrossCents
	f.FeeCents += o.FeeCents
	f.Expired += o.Expired
	f.Canceled += o.Canceled
	f.Refunds += o.Refunds
	f.RefundedCents += o.RefundedCents
	f.Disputes += o.Disputes
	f.DisputedCents += o.DisputedCents
	if f.PayTimes == nil {
		f.PayTimes = make([]int64, len(PayTimeBuckets)+1)
	}
	for i, n := range o.PayTimes {
		f.PayTimes[i] += n
	}
}

// OverviewPoint is the figures of one day or hour, starting At.
type OverviewPoint struct {
	At time.Time `bun:"at"`
	OverviewFigures
}

// OverviewStep is how a series is cut: by day or by hour of the zone.
type OverviewStep string

// The overview's steps.
const (
	StepDay  OverviewStep = "day"
	StepHour OverviewStep = "hour"
)

// overviewSeries sums scope's overview_hours (and the deltas not folded
// yet) in [from, to) by step in the
// zone tz, oldest first; steps without any figure are left out.
func (s *Store) overviewSeries(ctx context.Context, scope Scope, from, to time.Time, step OverviewStep, tz *time.Location) ([]OverviewPoint, error) {
	var points []OverviewPoint
	// The folded hours, and what is still to fold (a second's worth: an
	// unindexed table read whole).
	err := s.idb(ctx).NewRaw(`
		SELECT date_trunc(?, hour, ?) AS at, sum(created) AS created, sum(paid) AS paid,
			sum(gross_cents) AS gross_cents, sum(fee_cents) AS fee_cents, sum(expired) AS expired,
			sum(canceled) AS canceled, sum(refunds) AS refunds, sum(refunded_cents) AS refunded_cents,
			sum(disputes) AS disputes, sum(disputed_cents) AS disputed_cents,
			ARRAY[sum(pay_0), sum(pay_1), sum(pay_2), sum(pay_3), sum(pay_4),
				sum(pay_5), sum(pay_6), sum(pay_7), sum(pay_8), sum(pay_9)]::bigint[] AS pay_times
		FROM (
			SELECT hour, created, paid, gross_cents, fee_cents, expired, canceled, refunds, refunded_cents,
				disputes, disputed_cents, pay_0, pay_1, pay_2, pay_3, pay_4, pay_5, pay_6, pay_7, pay_8, pay_9
			FROM overview_hours
			WHERE account_id = ? AND livemode = ? AND hour >= ? AND hour < ?
			UNION ALL
			SELECT hour, created, paid, gross_cents, fee_cents, expired, canceled, refunds, refunded_cents,
				disputes, disputed_cents, (pay_bucket IS NOT DISTINCT FROM 0)::int, (pay_bucket IS NOT DISTINCT FROM 1)::int, (pay_bucket IS NOT DISTINCT FROM 2)::int,
				(pay_bucket IS NOT DISTINCT FROM 3)::int, (pay_bucket IS NOT DISTINCT FROM 4)::int, (pay_bucket IS NOT DISTINCT FROM 5)::int, (pay_bucket IS NOT DISTINCT FROM 6)::int,
				(pay_bucket IS NOT DISTINCT FROM 7)::int, (pay_bucket IS NOT DISTINCT FROM 8)::int, (pay_bucket IS NOT DISTINCT FROM 9)::int
			FROM rollup_deltas
			WHERE account_id = ? AND livemode = ? AND hour >= ? AND hour < ?
		) figures
		GROUP BY 1 ORDER BY 1`, string(step), tz.String(), scope.AccountID, scope.Livemode, from, to,
		scope.AccountID, scope.Livemode, from, to).Scan(ctx, &points)
	if err != nil {
		return nil, fmt.Errorf("store: overview: %w", err)
	}
	return points, nil
}

// WebhookDay is one webhook's attempts on one day of the zone, and how
// many of them the receiver acknowledged (2xx).
type WebhookDay struct {
	WebhookID string    `bun:"webhook_id"`
	URL       string    `bun:"url"`
	Day       time.Time `bun:"day"`
	Attempts  int64     `bun:"attempts"`
	Succeeded int64     `bun:"succeeded"`
}

// webhookDays sums the attempts of scope's webhooks in the hours
// [from, to) by webhook and day of the zone tz, from webhook_hours.
func (s *Store) webhookDays(ctx context.Context, scope Scope, from, to time.Time, tz *time.Location) ([]WebhookDay, error) {
	var days []WebhookDay
	err := s.idb(ctx).NewRaw(`
		SELECT w.id AS webhook_id, w.url, date_trunc('day', h.hour, ?) AS day, sum(h.attempts) AS attempts,
			sum(h.succeeded) AS succeeded
		FROM webhooks w JOIN webhook_hours h ON h.webhook_id = w.id AND h.hour >= ? AND h.hour < ?
		WHERE w.account_id = ? AND w.livemode = ?
		GROUP BY 1, 2, 3 ORDER BY 3, 1`, tz.String(), from, to, scope.AccountID, scope.Livemode).Scan(ctx, &days)
	if err != nil {
		return nil, fmt.Errorf("store: webhook days: %w", err)
	}
	return days, nil
}
