package store

import "payments/store/jsonw"

// DeliveryJSON is the public shape of a delivery, with its attempts.
type DeliveryJSON struct {
	ID             string        `json:"id"`
	Object         string        `json:"object"`
	WebhookID      string        `json:"webhook_id"`
	EventID        string        `json:"event_id"`
	EventType      string        `json:"event_type"`
	Livemode       bool          `json:"livemode"`
	Status         string        `json:"status"`
	Test           bool          `json:"test"`
	AttemptCount   int           `json:"attempt_count"`
	NextAttemptAt  *string       `json:"next_attempt_at"`
	LastStatusCode *int          `json:"last_status_code"`
	LastError      *string       `json:"last_error"`
	CreatedAt      string        `json:"created_at"`
	UpdatedAt      string        `json:"updated_at"`
	CompletedAt    *string       `json:"completed_at"`
	Attempts       []AttemptJSON `json:"attempts"`
}

// JSON is d's public shape; its attempts are those loaded with it.
func (d *Delivery) JSON() DeliveryJSON {
	out := DeliveryJSON{
		ID: d.ID, Object: "webhook_delivery", WebhookID: d.WebhookID, EventID: d.EventID, EventType: d.EventType,
		Livemode: d.Livemode, Status: d.Status, Test: d.Test, AttemptCount: d.Attempts, LastStatusCode: d.LastStatusCode,
		LastError: d.LastError, CreatedAt: jsonw.FormatTime(d.CreatedAt), UpdatedAt: jsonw.FormatTime(d.UpdatedAt),
		CompletedAt: jsonw.FormatTimePtr(d.CompletedAt), Attempts: make([]AttemptJSON, 0, len(d.AttemptsList)),
	}
	if d.Status == DeliveryPending {
		out.NextAttemptAt = jsonw.FormatTimePtr(&d.NextAttemptAt)
	}
	for i := range d.AttemptsList {
		out.Attempts = append(out.Attempts, d.AttemptsList[i].JSON())
	}
	return out
}
