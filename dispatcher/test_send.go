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
	Delivery *store.Delivery
	Attempt  store.DeliveryAttempt
	Success  bool
	Latency  time.Duration
}

// SendTest sends a sample event of eventType to w right away and records it
// like any delivery, marked test (never retried), and returns it. The
// sample's object has the shape of the real one, with obviously fake values.
func (d *Dispatcher) SendTest(ctx context.Context, w *store.Webhook, eventType string) (TestSendResult, error) {
	now := d.cfg.Now().UTC().Truncate(time.Millisecond)
	obj, objectID := SampleObject(eventType, store.Scope{AccountID: w.AccountID, Livemode: w.Livemode}, now)
	data, err := json.Marshal(obj)
	if err != nil {
		return TestSendResult{}, fmt.Errorf("dispatcher: sample object: %w", err)
	}
	e := &store.Event{
		ID: ids.New(ids.PrefixEvent), AccountID: w.AccountID, Livemode: w.Livemode,
		Type: eventType, ObjectID: objectID, Data: data, CreatedAt: now,
	}
	a := d.attempt(ctx, w, e, now)
	dl, err := d.store.RecordTestSend(ctx, e, &a.DeliveryAttempt, a.result.Success)
	if err != nil {
		return TestSendResult{}, err
	}
	return TestSendResult{Delivery: dl, Attempt: a.DeliveryAttempt, Success: a.result.Success, Latency: a.result.Duration}, nil
}

// SampleObject is the object an event of eventType carries, made up: a
// payment for payment.* events (store.SamplePayment), a refund, a dispute,
// a withdrawal, a subscription or a report otherwise; and its id.
func SampleObject(eventType string, scope store.Scope, now time.Time) (any, string) {
	switch eventType {
	case store.EventDisputeOpened, store.EventDisputeWon, store.EventDisputeLost:
		d := &store.Dispute{
			ID: "dsp_test", AccountID: scope.AccountID, Livemode: scope.Livemode, PaymentID: uuid.Nil, AmountCents: 1990,
			Reason: "fraud", Status: store.DisputeOpen, CreatedAt: now, UpdatedAt: now,
		}
		if eventType != store.EventDisputeOpened {
			d.Status, d.ClosedAt = map[string]string{store.EventDisputeWon: store.DisputeWon, store.EventDisputeLost: store.DisputeLost}[eventType], &now
		}
		return d, d.ID
	case store.EventWithdrawalCompleted, store.EventWithdrawalFailed:
		wd := &store.Withdrawal{
			ID: "wd_test", AccountID: scope.AccountID, Livemode: scope.Livemode, AmountCents: 1990,
			PixKey: "test@example.com", PixKeyType: "email", Metadata: map[string]string{"test": "true"},
			Status: store.WithdrawalCompleted, CreatedAt: now, UpdatedAt: now, CompletedAt: &now,
		}
		if eventType == store.EventWithdrawalFailed {
			reason := "Test event"
			wd.Status, wd.CompletedAt, wd.FailedAt, wd.FailureReason = store.WithdrawalFailed, nil, &now, &reason
		}
		return wd, wd.ID
	case store.EventSubscriptionCreated, store.EventSubscriptionActivated, store.EventSubscriptionRejected,
		store.EventSubscriptionCanceled, store.EventSubscriptionExpired:
		return store.SampleSubscription(scope, eventType, now), "sub_test"
	case store.EventReportReady, store.EventReportFailed:
		day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC).AddDate(0, 0, -1)
		r := &store.Report{
			ID: "rpt_test", AccountID: scope.AccountID, Livemode: scope.Livemode, Type: store.ReportLedger, Format: store.FormatCSV,
			FromDate: day, ToDate: day, TimeZone: store.DefaultTimeZone, PeriodStart: day.Add(3 * time.Hour),
			PeriodEnd: day.Add(27 * time.Hour), Status: store.ReportReady, FileURL: "https://example.com/api/v1/reports/rpt_test/file",
			CreatedAt: now, UpdatedAt: now, CompletedAt: &now,
		}
		if eventType == store.EventReportFailed {
			reason := "Test event"
			r.Status, r.FailureReason = store.ReportFailed, &reason
		} else {
			rows, size, sum, expires := int64(0), int64(0), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", now.Add(store.ReportFileLife)
			r.RowCount, r.SizeBytes, r.SHA256, r.ExpiresAt = &rows, &size, &sum, &expires
		}
		return r, r.ID
	case store.EventRefundSucceeded, store.EventRefundFailed:
		description := "Test refund"
		r := &store.Refund{
			ID: "re_test", AccountID: scope.AccountID, Livemode: scope.Livemode, PaymentID: uuid.Nil, AmountCents: 1990,
			FeeCents: 20, Reason: store.RefundRequested, Status: store.RefundSucceeded, Description: &description,
			CreatedAt: now, UpdatedAt: now, CompletedAt: &now,
		}
		if eventType == store.EventRefundFailed {
			reason := "Test event"
			r.Status, r.FailureReason = store.RefundFailed, &reason
		}
		return r, r.ID
	}
	status := map[string]string{
		store.EventPaymentCreated: store.StatusPending, store.EventPaymentPaid: store.StatusPaid,
		store.EventPaymentExpired: store.StatusExpired, store.EventPaymentCanceled: store.StatusCanceled,
		store.EventPaymentRefunded: store.StatusRefunded, store.EventPaymentRetryScheduled: store.StatusPending,
		store.EventPaymentFailed: store.StatusExpired,
	}[eventType]
	p := store.SamplePayment(scope, status, now)
	if eventType == store.EventPaymentRetryScheduled || eventType == store.EventPaymentFailed {
		p.SubscriptionID, p.Cycle = store.SampleCycle(eventType, now)
	}
	return p, p.ID.String()
}
