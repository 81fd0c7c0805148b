package handlers

import (
	"strings"
	"time"
	"unicode/utf8"

	"payments/store"
)

// webhookJSON is the public shape of a webhook. Secret is present only in the
// create and rotate responses.
type webhookJSON struct {
	ID                      string   `json:"id"`
	Object                  string   `json:"object"`
	Livemode                bool     `json:"livemode"`
	Name                    string   `json:"name"`
	URL                     string   `json:"url"`
	APIVersion              string   `json:"api_version"`
	Events                  []string `json:"events"`
	Enabled                 bool     `json:"enabled"`
	DisabledReason          *string  `json:"disabled_reason"`
	SecretHint              string   `json:"secret_hint"`
	PreviousSecretExpiresAt *string  `json:"previous_secret_expires_at"`
	FailingSince            *string  `json:"failing_since"`
	CreatedAt               string   `json:"created_at"`
	UpdatedAt               string   `json:"updated_at"`
	Secret                  *string  `json:"secret,omitempty"`
}

func newWebhookJSON(w *store.Webhook, now time.Time) webhookJSON {
	out := webhookJSON{
		ID: w.ID, Object: "webhook", Livemode: w.Livemode, Name: w.Name, URL: w.URL, APIVersion: w.APIVersion,
		Events: w.Events, Enabled: w.Enabled, DisabledReason: w.DisabledReason, SecretHint: w.SecretHint,
		FailingSince: store.FormatTimePtr(w.FailingSince), CreatedAt: store.FormatTime(w.CreatedAt), UpdatedAt: store.FormatTime(w.UpdatedAt),
	}
	if w.PreviousSecretExpiresAt != nil && w.PreviousSecretExpiresAt.After(now) {
		out.PreviousSecretExpiresAt = store.FormatTimePtr(w.PreviousSecretExpiresAt)
	}
	return out
}

type deliveryJSON struct {
	ID             string        `json:"id"`
	Object         string        `json:"object"`
	WebhookID      string        `json:"webhook_id"`
	EventID        string        `json:"event_id"`
	EventType      string        `json:"event_type"`
	Livemode       bool          `json:"livemode"`
	Status         string        `json:"status"`
	AttemptCount   int           `json:"attempt_count"`
	NextAttemptAt  *string       `json:"next_attempt_at"`
	LastStatusCode *int          `json:"last_status_code"`
	LastError      *string       `json:"last_error"`
	CreatedAt      string        `json:"created_at"`
	UpdatedAt      string        `json:"updated_at"`
	CompletedAt    *string       `json:"completed_at"`
	Attempts       []attemptJSON `json:"attempts"`
}

type attemptJSON struct {
	ID         string               `json:"id"`
	Object     string               `json:"object"`
	Attempt    int                  `json:"attempt"`
	EventID    string               `json:"event_id"`
	EventType  string               `json:"event_type"`
	Request    attemptRequestJSON   `json:"request"`
	Response   *attemptResponseJSON `json:"response"`
	DurationMS int                  `json:"duration_ms"`
	Error      *attemptErrorJSON    `json:"error"`
	CreatedAt  string               `json:"created_at"`
}

type attemptRequestJSON struct {
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
}

type attemptResponseJSON struct {
	Status  int                 `json:"status"`
	Headers map[string][]string `json:"headers"`
	Body    string              `json:"body"`
}

type attemptErrorJSON struct {
	Class   string `json:"class"`
	Message string `json:"message"`
}

func newDeliveryJSON(d *store.Delivery) deliveryJSON {
	out := deliveryJSON{
		ID: d.ID, Object: "webhook_delivery", WebhookID: d.WebhookID, EventID: d.EventID, EventType: d.EventType,
		Livemode: d.Livemode, Status: d.Status, AttemptCount: d.Attempts, LastStatusCode: d.LastStatusCode,
		LastError: d.LastError, CreatedAt: store.FormatTime(d.CreatedAt), UpdatedAt: store.FormatTime(d.UpdatedAt),
		CompletedAt: store.FormatTimePtr(d.CompletedAt), Attempts: make([]attemptJSON, 0, len(d.AttemptsList)),
	}
	if d.Status == store.DeliveryPending {
		out.NextAttemptAt = store.FormatTimePtr(&d.NextAttemptAt)
	}
	for i := range d.AttemptsList {
		out.Attempts = append(out.Attempts, newAttemptJSON(&d.AttemptsList[i]))
	}
	return out
}

func newAttemptJSON(a *store.DeliveryAttempt) attemptJSON {
	out := attemptJSON{
		ID: a.ID, Object: "webhook_attempt", Attempt: a.Attempt, EventID: a.EventID, EventType: a.EventType,
		Request:    attemptRequestJSON{URL: a.RequestURL, Headers: a.RequestHeaders, Body: a.RequestBody},
		DurationMS: a.DurationMS, CreatedAt: store.FormatTime(a.CreatedAt),
	}
	if out.Request.Headers == nil {
		out.Request.Headers = map[string]string{}
	}
	if a.ResponseStatus != nil {
		headers := a.ResponseHeaders
		if headers == nil {
			headers = map[string][]string{}
		}
		out.Response = &attemptResponseJSON{Status: *a.ResponseStatus, Headers: headers, Body: printableBody(a.ResponseBody)}
	}
	if a.ErrorClass != nil {
		msg := ""
		if a.ErrorMessage != nil {
			msg = *a.ErrorMessage
		}
		out.Error = &attemptErrorJSON{Class: *a.ErrorClass, Message: msg}
	}
	return out
}

// printableBody shows a receiver's response as text; bytes that are not
// UTF-8 become U+FFFD.
func printableBody(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}
