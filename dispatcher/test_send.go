package dispatcher

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"payments/store"
	"payments/store/ids"
)

// TestSendResult is the outcome of a "send test".
type TestSendResult struct {
	Attempt store.DeliveryAttempt
	Success bool
	Latency time.Duration
}

// SendTest sends a sample event of eventType to w right away, records the
// attempt (outside the queue, never retried) and returns it. The sample's
// object has the shape of the real one, with obviously fake values.
func (d *Dispatcher) SendTest(ctx context.Context, w *store.Webhook, eventType string) (TestSendResult, error) {
	now := d.cfg.Now().UTC().Truncate(time.Millisecond)
	data, err := json.Marshal(sampleObject(eventType, w, now))
	if err != nil {
		return TestSendResult{}, fmt.Errorf("dispatcher: sample object: %w", err)
	}
	e := &store.Event{
		ID: ids.New(ids.PrefixEvent), AccountID: w.AccountID, Livemode: w.Livemode,
		Type: eventType, Data: data, CreatedAt: now,
	}
	a := d.attempt(ctx, w, e, now)
	if err := d.store.RecordAttempt(ctx, &a.DeliveryAttempt); err != nil {
		return TestSendResult{}, err
	}
	return TestSendResult{Attempt: a.DeliveryAttempt, Success: a.result.Success, Latency: a.result.Duration}, nil
}

// sampleObject is the object a test event carries: a payment for payment.*
// events (store.SamplePayment), and a minimal dispute or withdrawal otherwise.
func sampleObject(eventType string, w *store.Webhook, now time.Time) any {
	switch eventType {
	case store.EventDisputeOpened, store.EventDisputeWon, store.EventDisputeLost:
		d := &store.Dispute{
			ID: "dsp_test", AccountID: w.AccountID, Livemode: w.Livemode, PaymentID: uuid.Nil, AmountCents: 1990,
			Reason: "fraud", Status: store.DisputeOpen, CreatedAt: now, UpdatedAt: now,
		}
		if eventType != store.EventDisputeOpened {
			d.Status, d.ClosedAt = map[string]string{store.EventDisputeWon: store.DisputeWon, store.EventDisputeLost: store.DisputeLost}[eventType], &now
		}
		return d
	case store.EventWithdrawalCompleted, store.EventWithdrawalFailed:
		wd := &store.Withdrawal{
			ID: "wd_test", AccountID: w.AccountID, Livemode: w.Livemode, AmountCents: 1990,
			PixKey: "test@example.com", PixKeyType: "email", Metadata: map[string]string{"test": "true"},
			Status: store.WithdrawalCompleted, CreatedAt: now, UpdatedAt: now, CompletedAt: &now,
		}
		if eventType == store.EventWithdrawalFailed {
			reason := "Test event"
			wd.Status, wd.CompletedAt, wd.FailedAt, wd.FailureReason = store.WithdrawalFailed, nil, &now, &reason
		}
		return wd
	}
	status := map[string]string{
		store.EventPaymentCreated: store.StatusPending, store.EventPaymentPaid: store.StatusPaid,
		store.EventPaymentExpired: store.StatusExpired, store.EventPaymentCanceled: store.StatusCanceled,
		store.EventPaymentRefunded: store.StatusRefunded,
	}[eventType]
	return store.SamplePayment(store.Scope{AccountID: w.AccountID, Livemode: w.Livemode}, status, now)
}
