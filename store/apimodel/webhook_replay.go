package apimodel

// WebhookReplay is the public shape of a replay of a window of events to
// a webhook: its window and types, and how far it has gone.
type WebhookReplay struct {
	ID           string   `json:"id"`
	Object       string   `json:"object"`
	Webhook      string   `json:"webhook"`
	Livemode     bool     `json:"livemode"`
	From         string   `json:"from"`
	To           string   `json:"to"`
	Types        []string `json:"types"`
	Status       string   `json:"status"`
	EventsTotal  int      `json:"events_total"`
	EventsQueued int      `json:"events_queued"`
	CreatedAt    string   `json:"created_at"`
	CompletedAt  *string  `json:"completed_at"`
}
