// Package envelope is the body of a webhook delivery, and of an event in
// the Events API: the event around the object frozen when it happened, in
// the shape of the webhook's api_version (v2, or the legacy flat v1).
package envelope

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"payments/store"
	"payments/store/jsonw"
	"payments/versions"
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
	Account    string       `json:"account,omitempty"`
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
	Account    string          `json:"account,omitempty"`
	Data       json.RawMessage `json:"data"`
	Source     string          `json:"source"`
	APIVersion string          `json:"api_version"`
}

// Envelope renders the event as the body a webhook of apiVersion receives,
// and (v2) as the Events API shows it.
// The object is the snapshot frozen when the event happened, already compact
// JSON, copied as is: the bytes equal json.Marshal of envelopeV2/envelopeV1
// (the golden tests hold both to that) without re-scanning the object on
// every attempt.
func Envelope(apiVersion string, e *store.Event) ([]byte, error) {
	return ForAccount(apiVersion, e, e.AccountID)
}

// ForAccount is Envelope as account's webhooks receive it: an event of
// another account (a subaccount's, at its platform's webhook) names that
// account in "account".
func ForAccount(apiVersion string, e *store.Event, account string) ([]byte, error) {
	created := e.CreatedAt.UTC().Truncate(time.Millisecond)
	quote := jsonw.AppendString
	b := make([]byte, 0, len(e.Data)+256)
	switch apiVersion {
	case "v2":
		b = quote(append(b, `{"id":`...), e.ID)
		b = quote(append(b, `,"type":`...), e.Type)
		b = append(b, `,"api_version":"v2","created":`...)
		b = strconv.AppendInt(b, created.Unix(), 10)
		b = quote(append(b, `,"created_at":`...), jsonw.FormatTime(created))
		b = strconv.AppendBool(append(b, `,"livemode":`...), e.Livemode)
		b = appendAccount(b, e, account)
		b = append(append(append(b, `,"data":{"object":`...), e.Data...), `},"source":"`+Source+`"}`...)
		return b, nil
	case "v1":
		b = quote(append(b, `{"event":`...), e.Type)
		b = quote(append(b, `,"event_id":`...), e.ID)
		b = quote(append(b, `,"created_at":`...), jsonw.FormatTime(created))
		b = strconv.AppendBool(append(b, `,"livemode":`...), e.Livemode)
		b = appendAccount(b, e, account)
		b = append(append(append(b, `,"data":`...), e.Data...), `,"source":"`+Source+`","api_version":"v1"}`...)
		return b, nil
	}
	return nil, fmt.Errorf("envelope: unknown api_version %q", apiVersion)
}

// appendAccount names e's account when it is not account's own.
func appendAccount(b []byte, e *store.Event, account string) []byte {
	if e.AccountID == "" || e.AccountID == account {
		return b
	}
	return jsonw.AppendString(append(b, `,"account":`...), e.AccountID)
}

// InVersion is ForAccount with the event's object in the shape of dated
// version paymentsVersion (versions.API): the event as written when no
// change since that version touches its type, as none does yet.
func InVersion(apiVersion, paymentsVersion string, e *store.Event, account string) ([]byte, error) {
	if paymentsVersion == versions.API.Current() {
		return ForAccount(apiVersion, e, account)
	}
	data, err := versions.API.Object(paymentsVersion, e.Type, e.Data)
	if err != nil {
		return nil, err
	}
	converted := *e
	converted.Data = data
	return ForAccount(apiVersion, &converted, account)
}
