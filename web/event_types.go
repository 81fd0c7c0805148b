package web

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"payments/dispatcher/envelope"
	"payments/store"
)

// The event catalog with a JSON Schema (draft 2020-12) of each type's
// payload in each webhook version: what GET /api/v1/event_types serves and
// the OpenAPI document's webhooks section names. Each schema is the
// document's component for that type and version, made self-contained (the
// components it refers to copied under $defs), so that a receiver
// validates a delivery with any JSON Schema library and nothing else.

// objectSchemas names the component of each event type's object, by the
// type's first word.
var objectSchemas = map[string]string{"payment": "Payment", "refund": "Refund", "dispute": "Dispute",
	"withdrawal": "Withdrawal", "subscription": "Subscription", "report": "Report"}

// eventObjectSchema is the component of eventType's object.
func eventObjectSchema(eventType string) string {
	first, _, _ := strings.Cut(eventType, ".")
	return objectSchemas[first]
}

// payloadSchemaName is the component of eventType's payload in version.
func payloadSchemaName(eventType, version string) string {
	name := "WebhookPayload"
	for _, word := range strings.FieldsFunc(eventType+"."+version, func(r rune) bool { return r == '.' || r == '_' }) {
		name += strings.ToUpper(word[:1]) + word[1:]
	}
	return name
}

// eventPayloadSchemas are the components of every event type's payload,
// v2 (the default) and v1.
func eventPayloadSchemas() obj {
	v2 := eventEnvelope()
	var out []any
	account := describe(o("type", "string", "pattern", "^acct_[0-9A-Za-z]{22}$"),
		"Only at a platform's webhook, for an event of one of its subaccounts: that subaccount.")
	for _, t := range store.EventTypes {
		obj := ref(eventObjectSchema(t))
		v2t := v2.with("type", constant(t), "data", object(o("object", describe(obj, "The object as GET would have answered when the event happened."))))
		required := slices.DeleteFunc(v2t.keys(), func(k string) bool { return k == "account" })
		v1 := o("event", constant(t), "event_id", o("type", "string", "pattern", "^evt_[0-9A-Za-z]{22}$"),
			"created_at", timestamp(), "livemode", boolean(), "account", account, "data", obj,
			"source", constant(envelope.Source), "api_version", constant("v1"))
		v1Required := slices.DeleteFunc(v1.keys(), func(k string) bool { return k == "account" })
		out = append(out, payloadSchemaName(t, "v2"), describe(object(v2t, required...), t+", as a v2 webhook receives it."),
			payloadSchemaName(t, "v1"), describe(object(v1, v1Required...), t+", as a v1 webhook receives it."))
	}
	return o(out...)
}

// eventDescriptions say what each event type means.
var eventDescriptions = map[string]string{
	store.EventPaymentCreated:            "A charge was made (live: once the PSP registered it, when its code is payable).",
	store.EventPaymentPaid:               "A charge was paid: its amount is in the balance, less the fee.",
	store.EventPaymentExpired:            "A charge was not paid in time.",
	store.EventPaymentCanceled:           "A pending charge was canceled by its merchant (or its PSP refused it).",
	store.EventPaymentRefunded:           "A paid charge was refunded in full.",
	store.EventRefundSucceeded:           "A refund reached the payer.",
	store.EventRefundFailed:              "A refund could not be made: its amount is back in the balance.",
	store.EventDisputeOpened:             "A payer's MED claim was opened on a paid charge: its amount is held.",
	store.EventDisputeUpdated:            "A dispute changed: a defense was sent, or the PSP moved it.",
	store.EventDisputeWon:                "A dispute ended in the merchant's favour: the held amount is released.",
	store.EventDisputeLost:               "A dispute ended in the payer's favour: the amount went back to the payer.",
	store.EventWithdrawalCompleted:       "A payout reached its Pix key.",
	store.EventWithdrawalFailed:          "A payout failed: its amount is back in the balance.",
	store.EventWithdrawalContested:       "The merchant contested a payout (MED 2.0).",
	store.EventWithdrawalContestReturned: "A contested payout's money came back, in whole or in part.",
	store.EventWithdrawalContestRefused:  "A payout's contest was refused: nothing came back.",
	store.EventSubscriptionCreated:       "A Pix Automático subscription awaits its payer's authorization (live: once the PSP has it).",
	store.EventSubscriptionActivated:     "The payer authorized the subscription.",
	store.EventSubscriptionRejected:      "The payer, or the PSP, refused the subscription.",
	store.EventSubscriptionCanceled:      "The subscription was canceled, by its merchant or its payer.",
	store.EventSubscriptionExpired:       "The subscription ended: past its end date, or not authorized in time.",
	store.EventPaymentRetryScheduled:     "A subscription cycle's debit was refused for balance and will be tried again.",
	store.EventPaymentFailed:             "A subscription cycle's debit failed for good.",
	store.EventReportReady:               "A report's file is ready to download.",
	store.EventReportFailed:              "A report could not be built.",
}

// eventWebhooks is the document's webhooks section: one per event type,
// its body either version's payload.
func eventWebhooks() obj {
	// The payloads are written inline, not as $refs to their components:
	// generators that prune the components no path uses (oapi-codegen)
	// would otherwise leave the webhooks' bodies naming missing types.
	payloads := map[string]any{}
	for _, f := range eventPayloadSchemas() {
		payloads[f.key] = f.value
	}
	out := o()
	for _, t := range store.EventTypes {
		out = out.with(t, o("post", o(
			"operationId", "event."+t, "summary", t, "tags", []string{"Events"},
			"description", "What a webhook subscribed to "+t+" receives, signed (see the README's Verify the signature): the v2 payload, or the v1 payload for a webhook of api_version v1. GET /api/v1/event_types serves each as a self-contained JSON Schema.",
			"requestBody", o("required", true, "content", o("application/json", o("schema",
				o("oneOf", []any{payloads[payloadSchemaName(t, "v2")], payloads[payloadSchemaName(t, "v1")]})))),
			"responses", o("2XX", o("description", "Received: any 2xx within the timeout is a success; anything else is retried.")),
		)))
	}
	return out
}

// eventTypesBody is EventTypesBody, built once.
var eventTypesBody = sync.OnceValues(EventTypesBody)

// EventTypesBody is GET /api/v1/event_types's answer, built from the
// OpenAPI document.
func EventTypesBody() ([]byte, error) {
	var doc struct {
		Components struct {
			Schemas map[string]json.RawMessage `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(OpenAPIDocument, &doc); err != nil {
		return nil, fmt.Errorf("event types: %w", err)
	}
	schemas := map[string]any{}
	for name, raw := range doc.Components.Schemas {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, fmt.Errorf("event types: %s: %w", name, err)
		}
		schemas[name] = v
	}
	type eventType struct {
		Object      string         `json:"object"`
		Type        string         `json:"type"`
		ObjectType  string         `json:"object_type"`
		Description string         `json:"description"`
		Schemas     map[string]any `json:"schemas"`
	}
	list := struct {
		Object  string      `json:"object"`
		URL     string      `json:"url"`
		HasMore bool        `json:"has_more"`
		Data    []eventType `json:"data"`
	}{Object: "list", URL: "/api/v1/event_types"}
	for _, t := range store.EventTypes {
		e := eventType{Object: "event_type", Type: t, ObjectType: strings.ToLower(eventObjectSchema(t)),
			Description: eventDescriptions[t], Schemas: map[string]any{}}
		for _, version := range store.APIVersions {
			s, err := bundle(schemas, payloadSchemaName(t, version))
			if err != nil {
				return nil, err
			}
			e.Schemas[version] = s
		}
		list.Data = append(list.Data, e)
	}
	return json.Marshal(list)
}

// bundle is the component name as a self-contained JSON Schema: the
// components it refers to, directly or not, under $defs.
func bundle(schemas map[string]any, name string) (map[string]any, error) {
	defs := map[string]any{}
	var walk func(v any) (any, error)
	walk = func(v any) (any, error) {
		switch v := v.(type) {
		case map[string]any:
			out := make(map[string]any, len(v))
			for k, x := range v {
				if s, ok := x.(string); ok && k == "$ref" {
					target, found := strings.CutPrefix(s, "#/components/schemas/")
					if !found {
						return nil, fmt.Errorf("event types: %s: a $ref outside the schemas: %s", name, s)
					}
					out[k] = "#/$defs/" + target
					if _, done := defs[target]; !done {
						defs[target] = nil // before the walk: a cycle stops here
						def, err := walk(schemas[target])
						if err != nil {
							return nil, err
						}
						defs[target] = def
					}
					continue
				}
				w, err := walk(x)
				if err != nil {
					return nil, err
				}
				out[k] = w
			}
			return out, nil
		case []any:
			out := make([]any, len(v))
			for i, x := range v {
				w, err := walk(x)
				if err != nil {
					return nil, err
				}
				out[i] = w
			}
			return out, nil
		}
		return v, nil
	}
	root, ok := schemas[name]
	if !ok {
		return nil, fmt.Errorf("event types: no schema %s", name)
	}
	top, err := walk(root)
	if err != nil {
		return nil, err
	}
	out := maps.Clone(top.(map[string]any))
	out["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	if len(defs) > 0 {
		out["$defs"] = defs
	}
	return out, nil
}
