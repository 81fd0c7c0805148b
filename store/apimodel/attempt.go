package apimodel

// Attempt is the public shape of an attempt: the request as signed and
// sent, and what came back.
type Attempt struct {
	ID         string           `json:"id"`
	Object     string           `json:"object"`
	Attempt    int              `json:"attempt"`
	EventID    string           `json:"event_id"`
	EventType  string           `json:"event_type"`
	Request    AttemptRequest   `json:"request"`
	Response   *AttemptResponse `json:"response"`
	DurationMS int              `json:"duration_ms"`
	Error      *AttemptError    `json:"error"`
	CreatedAt  string           `json:"created_at"`
}

// AttemptRequest is what was sent.
type AttemptRequest struct {
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
}

// AttemptResponse is what the receiver answered (the body's first 16 KiB).
type AttemptResponse struct {
	Status  int                 `json:"status"`
	Headers map[string][]string `json:"headers"`
	Body    string              `json:"body"`
}

// AttemptError is why an attempt got no answer, or a bad one.
type AttemptError struct {
	Class   string `json:"class"`
	Message string `json:"message"`
}
