package apimodel

// Delivery is the public shape of a delivery, with its attempts.
type Delivery struct {
	ID             string    `json:"id"`
	Object         string    `json:"object"`
	WebhookID      string    `json:"webhook_id"`
	EventID        string    `json:"event_id"`
	EventType      string    `json:"event_type"`
	Livemode       bool      `json:"livemode"`
	Status         string    `json:"status"`
	Test           bool      `json:"test"`
	AttemptCount   int       `json:"attempt_count"`
	NextAttemptAt  *string   `json:"next_attempt_at"`
	LastStatusCode *int      `json:"last_status_code"`
	LastError      *string   `json:"last_error"`
	CreatedAt      string    `json:"created_at"`
	UpdatedAt      string    `json:"updated_at"`
	CompletedAt    *string   `json:"completed_at"`
	Attempts       []Attempt `json:"attempts"`
}
