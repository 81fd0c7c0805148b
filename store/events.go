package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// Event types of the catalog.
const (
	EventPaymentCreated      = "payment.created"
	EventPaymentPaid         = "payment.paid"
	EventPaymentExpired      = "payment.expired"
	EventPaymentCanceled     = "payment.canceled"
	EventPaymentRefunded     = "payment.refunded"
	EventRefundSucceeded     = "refund.succeeded"
	EventRefundFailed        = "refund.failed"
	EventDisputeOpened       = "dispute.opened"
	EventDisputeUpdated      = "dispute.updated"
	EventDisputeWon          = "dispute.won"
	EventDisputeLost         = "dispute.lost"
	EventWithdrawalCompleted = "withdrawal.completed"
	EventWithdrawalFailed    = "withdrawal.failed"
	// A contested withdrawal (MED 2.0 for money sent): contested, then its
	// money returned (in whole or in part) or the contest refused.
	EventWithdrawalContested       = "withdrawal.contested"
	EventWithdrawalContestReturned = "withdrawal.contest_returned"
	EventWithdrawalContestRefused  = "withdrawal.contest_refused"
	// A subscription's (Pix Automático) life, and its cycles' retries.
	EventSubscriptionCreated   = "subscription.created"
	EventSubscriptionActivated = "subscription.activated"
	EventSubscriptionRejected  = "subscription.rejected"
	EventSubscriptionCanceled  = "subscription.canceled"
	EventSubscriptionExpired   = "subscription.expired"
	EventPaymentRetryScheduled = "payment.retry_scheduled"
	EventPaymentFailed         = "payment.failed"
)

// EventTypes is the catalog webhooks subscribe to, in display order.
var EventTypes = []string{
	EventPaymentCreated, EventPaymentPaid, EventPaymentExpired, EventPaymentCanceled, EventPaymentRefunded,
	EventRefundSucceeded, EventRefundFailed, EventDisputeOpened, EventDisputeUpdated, EventDisputeWon, EventDisputeLost,
	EventWithdrawalCompleted, EventWithdrawalFailed, EventWithdrawalContested, EventWithdrawalContestReturned, EventWithdrawalContestRefused,
	EventSubscriptionCreated, EventSubscriptionActivated, EventSubscriptionRejected, EventSubscriptionCanceled, EventSubscriptionExpired,
	EventPaymentRetryScheduled, EventPaymentFailed, EventReportReady, EventReportFailed,
}

// DeliveriesChannel is the NOTIFY channel that wakes the dispatcher when
// deliveries are queued.
const DeliveriesChannel = "webhook_deliveries"

// Event is an outbox row: a state change and the object as it was then.
type Event struct {
	bun.BaseModel `bun:"table:events"`

	ID        string          `bun:"id,pk"`
	AccountID string          `bun:"account_id"`
	Livemode  bool            `bun:"livemode"`
	Type      string          `bun:"type"`
	ObjectID  string          `bun:"object_id"`
	Data      json.RawMessage `bun:"data,type:json"`
	CreatedAt time.Time       `bun:"created_at"`
	// Sample marks the made-up event of a "send test".
	Sample bool `bun:"sample"`
	// TraceParent is the W3C traceparent of the request that made the
	// event (nil when traces are off).
	TraceParent *string `bun:"traceparent"`
	// TraceState is that request's W3C tracestate (nil: it had none).
	TraceState *string `bun:"tracestate"`
	// Actor is who asked for the change the event tells (see Actor).
	Actor string `bun:"actor"`
	// StreamTx is the writing transaction, read by the event stream only.
	StreamTx string `bun:"stream_tx,scanonly"`
}

// EventsForObjects lists the events of these objects (a payment, its
// refunds and disputes) in one query, in the order they happened.
func (s *Store) EventsForObjects(ctx context.Context, scope Scope, objectIDs []string) ([]Event, error) {
	var events []Event
	if len(objectIDs) == 0 {
		return events, nil
	}
	err := s.idb(ctx).NewSelect().Model(&events).
		Where("account_id = ? AND livemode = ? AND object_id IN (?) AND NOT sample", scope.AccountID, scope.Livemode, bun.List(objectIDs)).
		Order("created_at", "id").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: events: %w", err)
	}
	return events, nil
}
