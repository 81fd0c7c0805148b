package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"payments/store/apimodel"
	"payments/store/ids"
	"payments/store/jsonw"
)

// A replay delivers again to one webhook every event of a window (and of
// chosen types among the webhook's), whatever became of their earlier
// deliveries: StartReplay checks and records it, AdvanceReplays (the
// maintenance loop, every second) queues its deliveries a chunk at a
// time, keeping its place and its progress, until the window is done.

// Replay statuses.
const (
	ReplayRunning   = "running"
	ReplayCompleted = "completed"
)

// MaxReplayEvents is the most events one replay delivers again: a wider
// window is refused, to be split.
const MaxReplayEvents = 10_000

// WebhookReplay is one replay of a window of events to a webhook.
type WebhookReplay struct {
	bun.BaseModel `bun:"table:webhook_replays"`

	ID           string     `bun:"id,pk"`
	WebhookID    string     `bun:"webhook_id"`
	AccountID    string     `bun:"account_id"`
	Livemode     bool       `bun:"livemode"`
	From         time.Time  `bun:"from_at"`
	To           time.Time  `bun:"to_at"`
	Types        []string   `bun:"types,array"`
	Status       string     `bun:"status"`
	EventsTotal  int        `bun:"events_total"`
	EventsQueued int        `bun:"events_queued"`
	CursorAt     *time.Time `bun:"cursor_at"`
	CursorID     *string    `bun:"cursor_id"`
	CreatedAt    time.Time  `bun:"created_at"`
	UpdatedAt    time.Time  `bun:"updated_at"`
	CompletedAt  *time.Time `bun:"completed_at"`
}

// ErrReplayRunning refuses a replay while another of the same webhook runs.
var ErrReplayRunning = errors.New("store: a replay of this webhook is running")

// ReplayTooLargeError refuses a window holding more than MaxReplayEvents
// events (Count is at least MaxReplayEvents+1).
type ReplayTooLargeError struct{ Count int }

func (e *ReplayTooLargeError) Error() string {
	return fmt.Sprintf("store: the window holds more than %d events", MaxReplayEvents)
}

// ReplayTypesError names the types asked for that the webhook does not
// subscribe to.
type ReplayTypesError struct{ Types []string }

func (e *ReplayTypesError) Error() string {
	return fmt.Sprintf("store: the webhook does not subscribe to %v", e.Types)
}

// replayEventsWhere selects a replay's events: the account's and its
// subaccounts' (webhookEventAccounts), of its types, in its window (NOT
// sample: a "send test"'s made-up events).
const replayEventsWhere = webhookEventAccounts + " AND livemode = ? AND NOT sample AND type IN (?) AND created_at >= ? AND created_at <= ?"

// webhookEventAccounts selects the events a webhook of an account (its
// id, given twice) receives: the account's own and, for a platform, its
// subaccounts', as the outbox queues them.
const webhookEventAccounts = "account_id = ANY (ARRAY(SELECT ?::text UNION ALL SELECT id FROM accounts WHERE parent_account_id = ?))"

// StartReplay records a replay of the events of types (nil: all the
// webhook's) created in [from, to] to the scope's webhook webhookID, with
// how many there are; AdvanceReplays delivers them. A window reaching
// past now ends now: what comes after is delivered as it happens, and
// would otherwise be delivered twice.
func (s *Store) StartReplay(ctx context.Context, scope Scope, webhookID string, from, to time.Time, types []string) (*WebhookReplay, error) {
	if now := s.Now(); to.After(now) {
		to = now
	}
	if from.After(to) {
		from = to
	}
	r := &WebhookReplay{ID: ids.New(ids.PrefixReplay), WebhookID: webhookID, AccountID: scope.AccountID, Livemode: scope.Livemode,
		From: from, To: to, Status: ReplayRunning}
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		w, err := lockWebhook(ctx, tx, scope, webhookID)
		if err != nil {
			return err
		}
		if !w.Enabled {
			return ErrWebhookDisabled
		}
		r.Types = types
		if len(types) == 0 {
			r.Types = w.Events
		}
		var foreign []string
		for _, t := range r.Types {
			if !slices.Contains(w.Events, t) {
				foreign = append(foreign, t)
			}
		}
		if len(foreign) > 0 {
			return &ReplayTypesError{Types: foreign}
		}
		// Under the webhook's lock: two starts cannot both see none.
		running, err := tx.NewSelect().Model((*WebhookReplay)(nil)).Where("webhook_id = ? AND status = ?", webhookID, ReplayRunning).Exists(ctx)
		if err != nil {
			return fmt.Errorf("store: running replay: %w", err)
		}
		if running {
			return ErrReplayRunning
		}
		err = tx.NewRaw("SELECT count(*) FROM (SELECT 1 FROM events WHERE "+replayEventsWhere+" LIMIT ?) e",
			scope.AccountID, scope.AccountID, scope.Livemode, bun.List(r.Types), from, to, MaxReplayEvents+1).Scan(ctx, &r.EventsTotal)
		if err != nil {
			return fmt.Errorf("store: count replay events: %w", err)
		}
		if r.EventsTotal > MaxReplayEvents {
			return &ReplayTooLargeError{Count: r.EventsTotal}
		}
		now := s.Now()
		r.CreatedAt, r.UpdatedAt = now, now
		if r.EventsTotal == 0 {
			r.Status, r.CompletedAt = ReplayCompleted, &now
		}
		if _, err := tx.NewInsert().Model(r).Exec(ctx); err != nil {
			if errors.Is(translate(err), ErrConflict) {
				return ErrReplayRunning
			}
			return fmt.Errorf("store: start replay: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// AdvanceReplays queues the next chunk (up to limit events) of one running
// replay, the one least recently advanced, and completes it when its
// window is done; it returns how many events it queued. Each chunk is a
// transaction, so a replay survives any restart where it stopped.
func (s *Store) AdvanceReplays(ctx context.Context, limit int) (int, error) {
	n := 0
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		r := new(WebhookReplay)
		err := tx.NewSelect().Model(r).Where("status = ?", ReplayRunning).OrderExpr("updated_at, id").Limit(1).
			For("UPDATE SKIP LOCKED").Scan(ctx)
		if err != nil {
			if errors.Is(translate(err), ErrNotFound) {
				return nil
			}
			return fmt.Errorf("store: running replay: %w", err)
		}
		w := new(Webhook)
		if err := tx.NewSelect().Model(w).Where("id = ?", r.WebhookID).Scan(ctx); err != nil {
			return fmt.Errorf("store: replay's webhook: %w", err)
		}
		var events []Event
		q := tx.NewSelect().Model(&events).Column("id", "type", "object_id", "livemode", "data", "created_at").
			Where(replayEventsWhere, r.AccountID, r.AccountID, r.Livemode, bun.List(r.Types), r.From, r.To)
		if r.CursorAt != nil {
			q = q.Where("(created_at, id) > (?, ?)", *r.CursorAt, *r.CursorID)
		}
		if err := q.OrderExpr("created_at, id").Limit(int64(limit)).Scan(ctx); err != nil {
			return fmt.Errorf("store: replay events: %w", err)
		}
		// The replay's types the webhook still subscribes to: one it
		// dropped since is skipped.
		hook := *w
		hook.Events = slices.DeleteFunc(slices.Clone(r.Types), func(t string) bool { return !slices.Contains(w.Events, t) })
		if _, err := s.queueAgain(ctx, tx, []Webhook{hook}, events, true); err != nil {
			return err
		}
		n = len(events)
		now := s.Now()
		r.EventsQueued += n
		r.UpdatedAt = now
		if n > 0 {
			last := events[n-1]
			r.CursorAt, r.CursorID = &last.CreatedAt, &last.ID
		}
		if n < limit {
			r.Status, r.CompletedAt = ReplayCompleted, &now
			// The window is in the past: only retention can have taken
			// events since it was counted. The total is what was done.
			r.EventsTotal = r.EventsQueued
		}
		_, err = tx.NewUpdate().Model(r).Column("events_queued", "events_total", "cursor_at", "cursor_id", "status", "updated_at", "completed_at").
			WherePK().Exec(ctx)
		if err != nil {
			return fmt.Errorf("store: advance replay: %w", err)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// Replays lists the scope's webhook's latest replays (up to limit), newest first.
func (s *Store) Replays(ctx context.Context, scope Scope, webhookID string, limit int) ([]WebhookReplay, error) {
	var out []WebhookReplay
	err := s.idb(ctx).NewSelect().Model(&out).
		Where("webhook_id = ? AND account_id = ? AND livemode = ?", webhookID, scope.AccountID, scope.Livemode).
		OrderExpr("created_at DESC, id DESC").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: replays: %w", err)
	}
	return out, nil
}

// Replay reads one of the scope's webhook's replays (another's: ErrNotFound).
func (s *Store) Replay(ctx context.Context, scope Scope, webhookID, id string) (*WebhookReplay, error) {
	r := new(WebhookReplay)
	err := s.idb(ctx).NewSelect().Model(r).
		Where("id = ? AND webhook_id = ? AND account_id = ? AND livemode = ?", id, webhookID, scope.AccountID, scope.Livemode).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: replay: %w", translate(err))
	}
	return r, nil
}

// JSON is r's public shape.
func (r *WebhookReplay) JSON() apimodel.WebhookReplay {
	return apimodel.WebhookReplay{ID: r.ID, Object: "webhook_replay", Webhook: r.WebhookID, Livemode: r.Livemode,
		From: jsonw.FormatTime(r.From), To: jsonw.FormatTime(r.To), Types: r.Types, Status: r.Status,
		EventsTotal: r.EventsTotal, EventsQueued: r.EventsQueued, CreatedAt: jsonw.FormatTime(r.CreatedAt),
		CompletedAt: jsonw.FormatTimePtr(r.CompletedAt)}
}
