// Package dispatcher delivers queued events to webhooks: it claims due
// deliveries, builds the v1/v2 envelope, signs it, POSTs it through an
// SSRF-guarded client, and records the outcome with the retry policy.
package dispatcher

import (
	"encoding/json"
	"fmt"
	"time"

	"payments/store"
)

// Source names the service in every envelope.
const Source = "service"

// envelopeV2 is the recommended shape: the object sits in data.object.
type envelopeV2 struct {
	ID         string       `json:"id"`
	Type       string       `json:"type"`
	APIVersion string       `json:"api_version"`
	Created    int64        `json:"created"`
	CreatedAt  string       `json:"created_at"`
	Livemode   bool         `json:"livemode"`
	Data       envelopeData `json:"data"`
	Source     string       `json:"source"`
}

type envelopeData struct {
	Object json.RawMessage `json:"object"`
}

// envelopeV1 is the legacy flat shape: the object is data itself.
type envelopeV1 struct {
	Event      string          `json:"event"`
	EventID    string          `json:"event_id"`
	CreatedAt  string          `json:"created_at"`
	Livemode   bool            `json:"livemode"`
	Data       json.RawMessage `json:"data"`
	Source     string          `json:"source"`
	APIVersion string          `json:"api_version"`
}

// Envelope renders the event as the body a webhook of apiVersion receives.
// The object is the snapshot frozen when the event happened.
func Envelope(apiVersion string, e *store.Event) ([]byte, error) {
	created := e.CreatedAt.UTC().Truncate(time.Millisecond)
	switch apiVersion {
	case "v2":
		return json.Marshal(envelopeV2{
			ID: e.ID, Type: e.Type, APIVersion: "v2", Created: created.Unix(), CreatedAt: store.FormatTime(created),
			Livemode: e.Livemode, Data: envelopeData{Object: e.Data}, Source: Source,
		})
	case "v1":
		return json.Marshal(envelopeV1{
			Event: e.Type, EventID: e.ID, CreatedAt: store.FormatTime(created), Livemode: e.Livemode,
			Data: e.Data, Source: Source, APIVersion: "v1",
		})
	}
	return nil, fmt.Errorf("dispatcher: unknown api_version %q", apiVersion)
}
