package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/uptrace/bun"

	"payments/store/ids"
)

// What the Events API reads: an account's events (sample events of "send
// test" left out) as a list, one at a time with its deliveries, and as a
// stream; and what it writes: new deliveries of past events (recover,
// resend).

// EventListParams pages the scope's events, newest first.
type EventListParams struct {
	Scope                  Scope
	Types                  []string
	CreatedGTE, CreatedLTE *time.Time
	// DeliverySuccess, when set, keeps the events every webhook they were
	// queued for has acknowledged (true) or those some webhook has not yet
	// acknowledged with a 2xx (false).
	DeliverySuccess *bool
	Limit           int
	StartingAfter   string
	EndingBefore    string
}

// unacknowledgedSQL is true for an event some webhook had it queued and has
// not answered any of its deliveries with a 2xx (a later recovery that
// succeeded counts).
const unacknowledgedSQL = `EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = event.id AND NOT d.test
	AND NOT EXISTS (SELECT 1 FROM webhook_deliveries s WHERE s.event_id = d.event_id AND s.webhook_id = d.webhook_id
		AND s.status = 'succeeded'))`

// ListEvents is one page of the scope's events, ordered by (created_at, id)
// newest first: events_account_idx serves it, and a cursor names an event
// whose place does not move when others are added.
func (s *Store) ListEvents(ctx context.Context, p EventListParams) ([]Event, bool, error) {
	var page []Event
	q := s.idb(ctx).NewSelect().Model(&page).
		Where("event.account_id = ? AND event.livemode = ? AND NOT event.sample", p.Scope.AccountID, p.Scope.Livemode)
	if len(p.Types) > 0 {
		q = q.Where("event.type IN (?)", bun.List(p.Types))
	}
	if p.CreatedGTE != nil {
		q = q.Where("event.created_at >= ?", *p.CreatedGTE)
	}
	if p.CreatedLTE != nil {
		q = q.Where("event.created_at <= ?", *p.CreatedLTE)
	}
	if p.DeliverySuccess != nil {
		if *p.DeliverySuccess {
			q = q.Where("EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = event.id AND NOT d.test) AND NOT " + unacknowledgedSQL)
		} else {
			// Found from the deliveries not (yet) succeeded, each kind by its
			// index: walked from the events, an account whose events were all
			// acknowledged had every one of them tried.
			q = q.Where(`event.id IN (SELECT d.event_id FROM webhooks w
				CROSS JOIN LATERAL ((SELECT event_id, webhook_id FROM webhook_deliveries WHERE webhook_id = w.id AND status = 'pending' AND NOT test)
					UNION ALL (SELECT event_id, webhook_id FROM webhook_deliveries WHERE webhook_id = w.id AND status = 'failed' AND NOT test)) d
				WHERE w.account_id = ? AND w.livemode = ? AND NOT EXISTS (SELECT 1 FROM webhook_deliveries s
					WHERE s.event_id = d.event_id AND s.webhook_id = d.webhook_id AND s.status = 'succeeded'))`,
				p.Scope.AccountID, p.Scope.Livemode)
		}
	}
	const cursor = "(SELECT created_at, id FROM events WHERE id = ?)"
	switch {
	case p.EndingBefore != "":
		q = q.Where("(event.created_at, event.id) > "+cursor, p.EndingBefore).Order("event.created_at ASC", "event.id ASC")
	case p.StartingAfter != "":
		q = q.Where("(event.created_at, event.id) < "+cursor, p.StartingAfter).Order("event.created_at DESC", "event.id DESC")
	default:
		q = q.Order("event.created_at DESC", "event.id DESC")
	}
	if err := q.Limit(int64(p.Limit) + 1).Scan(ctx); err != nil {
		return nil, false, fmt.Errorf("store: list events: %w", err)
	}
	hasMore := len(page) > p.Limit
	if hasMore {
		page = page[:p.Limit]
	}
	if p.EndingBefore != "" {
		for i, j := 0, len(page)-1; i < j; i, j = i+1, j-1 {
			page[i], page[j] = page[j], page[i]
		}
	}
	return page, hasMore, nil
}

// EventByID returns one of the scope's events (never a sample).
func (s *Store) EventByID(ctx context.Context, scope Scope, id string) (*Event, error) {
	e := new(Event)
	err := s.idb(ctx).NewSelect().Model(e).
		Where("id = ? AND account_id = ? AND livemode = ? AND NOT sample", id, scope.AccountID, scope.Livemode).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: event: %w", translate(err))
	}
	return e, nil
}

// EventDeliveries lists an event's deliveries with their attempts, oldest first.
func (s *Store) EventDeliveries(ctx context.Context, scope Scope, eventID string) ([]Delivery, error) {
	out := []Delivery{}
	err := s.idb(ctx).NewSelect().Model(&out).
		Relation("AttemptsList", func(q *bun.SelectQuery) *bun.SelectQuery { return q.Order("created_at", "id") }).
		Where("delivery.event_id = ? AND delivery.account_id = ? AND delivery.livemode = ?", eventID, scope.AccountID, scope.Livemode).
		Order("delivery.created_at", "delivery.id").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: event deliveries: %w", err)
	}
	return out, nil
}

// StreamPosition is where an event stream stands: after the event ID,
// written by transaction Tx at Created. The stream hands events out in
// (tx, id) order, and only those written by transactions older than every
// transaction still running: an event committed after a later-numbered one
// is handed out after it, never skipped.
type StreamPosition struct {
	Tx      uint64
	ID      string
	Created time.Time
}

// streamMargin bounds how long a transaction writing events may run: a
// stream looks back this far from its position's creation time (which
// keeps each poll on events_account_idx).
const streamMargin = time.Minute

// StreamFrom is the position after the scope's event afterID, or, when
// afterID is empty, the position of now: events written from now on.
func (s *Store) StreamFrom(ctx context.Context, scope Scope, afterID string) (StreamPosition, error) {
	var tx string
	pos := StreamPosition{ID: afterID}
	if afterID == "" {
		pos.Created = s.Now()
		if err := s.idb(ctx).NewRaw("SELECT pg_snapshot_xmin(pg_current_snapshot())::text").Scan(ctx, &tx); err != nil {
			return pos, fmt.Errorf("store: stream start: %w", err)
		}
	} else {
		err := s.idb(ctx).NewRaw("SELECT tx::text, created_at FROM events WHERE id = ? AND account_id = ? AND livemode = ? AND NOT sample",
			afterID, scope.AccountID, scope.Livemode).Scan(ctx, &tx, &pos.Created)
		if err != nil {
			return pos, fmt.Errorf("store: stream position: %w", translate(err))
		}
	}
	n, err := strconv.ParseUint(tx, 10, 64)
	if err != nil {
		return pos, fmt.Errorf("store: stream position: %w", err)
	}
	// From now: everything below xmin is finished, so the stream starts at
	// xmin with any id ((xmin, "") is before all of xmin's events).
	pos.Tx = n
	return pos, nil
}

// StreamEvents returns up to limit of the scope's events after pos (of
// types, when given) and the position after the last one.
func (s *Store) StreamEvents(ctx context.Context, scope Scope, pos StreamPosition, types []string, limit int) ([]Event, StreamPosition, error) {
	var events []Event
	q := s.idb(ctx).NewSelect().Model(&events).ColumnExpr("?TableColumns, event.tx::text AS stream_tx").
		Where("event.account_id = ? AND event.livemode = ? AND NOT event.sample", scope.AccountID, scope.Livemode).
		Where("event.created_at >= ?", pos.Created.Add(-streamMargin)).
		Where("(event.tx, event.id) > (?::xid8, ?)", strconv.FormatUint(pos.Tx, 10), pos.ID).
		Where("event.tx < pg_snapshot_xmin(pg_current_snapshot())")
	if len(types) > 0 {
		q = q.Where("event.type IN (?)", bun.List(types))
	}
	if err := q.OrderExpr("event.tx, event.id").Limit(int64(limit)).Scan(ctx); err != nil {
		return nil, pos, fmt.Errorf("store: stream events: %w", err)
	}
	for i := range events {
		if _, err := strconv.ParseUint(events[i].StreamTx, 10, 64); err != nil {
			return nil, pos, fmt.Errorf("store: stream events: %w", err)
		}
		pos = PositionOf(&events[i])
	}
	return events, pos, nil
}

// PositionOf is the stream position of an event StreamEvents returned.
func PositionOf(e *Event) StreamPosition {
	n, _ := strconv.ParseUint(e.StreamTx, 10, 64)
	return StreamPosition{Tx: n, ID: e.ID, Created: e.CreatedAt}
}

// ErrWebhookDisabled refuses to queue deliveries for a disabled webhook:
// they would wait, unattempted, until it is enabled.
var ErrWebhookDisabled = errors.New("store: webhook is disabled")

// RecoverEvents queues a new delivery to the webhook of every event of its
// subscribed types created in [since, until] (a platform's: its
// subaccounts' too, as they were delivered), whatever became of earlier
// deliveries, and returns how many. Earlier deliveries stay as they ended.
func (s *Store) RecoverEvents(ctx context.Context, scope Scope, webhookID string, since, until time.Time) (int, error) {
	var n int
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		w, err := lockWebhook(ctx, tx, scope, webhookID)
		if err != nil {
			return err
		}
		if !w.Enabled {
			return ErrWebhookDisabled
		}
		var events []Event
		err = tx.NewSelect().Model(&events).Column("id", "type", "object_id", "livemode", "data").
			Where(webhookEventAccounts+" AND livemode = ? AND NOT sample AND type IN (?)", scope.AccountID, scope.AccountID, scope.Livemode, bun.List(w.Events)).
			Where("created_at >= ? AND created_at <= ?", since, until).
			Order("created_at", "id").Scan(ctx)
		if err != nil {
			return fmt.Errorf("store: events to recover: %w", err)
		}
		made, err := s.queueAgain(ctx, tx, []Webhook{*w}, events, true)
		n = len(made)
		return err
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// ResendEvent queues a new delivery of e (one of the scope's events, as
// EventByID read it) to the webhook named (or, when webhookID is empty, to
// every enabled webhook of the scope subscribed to its type) and returns the
// deliveries made. ErrNotFound names the webhook.
func (s *Store) ResendEvent(ctx context.Context, scope Scope, e *Event, webhookID string) ([]Delivery, error) {
	var hooks []Webhook
	if webhookID != "" {
		w, err := s.Webhook(ctx, scope, webhookID)
		if err != nil {
			return nil, err
		}
		if !w.Enabled {
			return nil, ErrWebhookDisabled
		}
		hooks = []Webhook{*w}
	} else {
		err := s.idb(ctx).NewSelect().Model(&hooks).
			Where("account_id = ? AND livemode = ? AND enabled AND ? = ANY(events)", scope.AccountID, scope.Livemode, e.Type).
			Order("created_at", "id").Scan(ctx)
		if err != nil {
			return nil, fmt.Errorf("store: webhooks to resend to: %w", err)
		}
	}
	var made []Delivery
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var err error
		// Asked for by name: a filter does not hold it back.
		made, err = s.queueAgain(ctx, tx, hooks, []Event{*e}, false)
		return err
	})
	if err != nil {
		return nil, err
	}
	return made, nil
}

// queueAgain writes a new pending delivery of each event to each webhook
// subscribed to its type (and, filtered, whose payload filter passes it),
// due now, and wakes the dispatchers.
func (s *Store) queueAgain(ctx context.Context, tx bun.Tx, hooks []Webhook, events []Event, filtered bool) ([]Delivery, error) {
	now := s.Now()
	made := []Delivery{}
	for _, e := range events {
		for _, w := range hooks {
			if !slices.Contains(w.Events, e.Type) || filtered && !s.passesFilter(&w, &e) {
				continue
			}
			dl := Delivery{ID: ids.New(ids.PrefixDelivery), EventID: e.ID, WebhookID: w.ID,
				AccountID: w.AccountID, Livemode: w.Livemode, EventType: e.Type, Status: DeliveryPending,
				NextAttemptAt: now, CreatedAt: now, UpdatedAt: now}
			if w.Ordered {
				key := OrderKey(w.ID, e.ObjectID)
				dl.OrderKey = &key
			}
			made = append(made, dl)
		}
	}
	for chunk := range slices.Chunk(made, 1000) {
		_, err := tx.NewInsert().Model(&chunk).ExcludeColumn("lease_token", "lease_expires_at").Exec(ctx)
		if err != nil {
			return nil, fmt.Errorf("store: queue deliveries again: %w", err)
		}
	}
	if len(made) > 0 {
		if _, err := tx.ExecContext(ctx, "SELECT pg_notify(?, '')", DeliveriesChannel); err != nil {
			return nil, fmt.Errorf("store: wake dispatchers: %w", err)
		}
	}
	return made, nil
}
