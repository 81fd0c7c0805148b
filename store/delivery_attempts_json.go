package store

import "payments/store/jsonw"

// AttemptJSON is the public shape of an attempt: the request as signed and
// sent, and what came back.
type AttemptJSON struct {
	ID         string               `json:"id"`
	Object     string               `json:"object"`
	Attempt    int                  `json:"attempt"`
	EventID    string               `json:"event_id"`
	EventType  string               `json:"event_type"`
	Request    AttemptRequestJSON   `json:"request"`
	Response   *AttemptResponseJSON `json:"response"`
	DurationMS int                  `json:"duration_ms"`
	Error      *AttemptErrorJSON    `json:"error"`
	CreatedAt  string               `json:"created_at"`
}

// AttemptRequestJSON is what was sent.
type AttemptRequestJSON struct {
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
}

// AttemptResponseJSON is what the receiver answered (the body's first 16 KiB).
type AttemptResponseJSON struct {
	Status  int                 `json:"status"`
	Headers map[string][]string `json:"headers"`
	Body    string              `json:"body"`
}

// AttemptErrorJSON is why an attempt got no answer, or a bad one.
type AttemptErrorJSON struct {
	Class   string `json:"class"`
	Message string `json:"message"`
}

// JSON is a's public shape.
func (a *DeliveryAttempt) JSON() AttemptJSON {
	out := AttemptJSON{
		ID: a.ID, Object: "webhook_attempt", Attempt: a.Attempt, EventID: a.EventID, EventType: a.EventType,
		Request:    AttemptRequestJSON{URL: a.RequestURL, Headers: a.RequestHeaders, Body: a.RequestBody},
		DurationMS: a.DurationMS, CreatedAt: jsonw.FormatTime(a.CreatedAt),
	}
	if out.Request.Headers == nil {
		out.Request.Headers = map[string]string{}
	}
	if a.ResponseStatus != nil {
		headers := a.ResponseHeaders
		if headers == nil {
			headers = map[string][]string{}
		}
		out.Response = &AttemptResponseJSON{Status: *a.ResponseStatus, Headers: headers, Body: a.ResponseText()}
	}
	if a.ErrorClass != nil {
		msg := ""
		if a.ErrorMessage != nil {
			msg = *a.ErrorMessage
		}
		out.Error = &AttemptErrorJSON{Class: *a.ErrorClass, Message: msg}
	}
	return out
}
