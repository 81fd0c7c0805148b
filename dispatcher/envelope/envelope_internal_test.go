package envelope

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/store"
	"payments/store/jsonw"
)

// Envelope writes its bytes by hand; they must be exactly what json.Marshal
// makes of the envelope structs, for objects with characters JSON escapes.
func TestEnvelopeEqualsMarshalledStructs(t *testing.T) {
	t.Parallel()
	for _, object := range []map[string]any{
		{"id": "x", "description": "<b>Caneca & café</b> \u2028 \"aspas\"", "amount_cents": 1990, "metadata": map[string]any{}},
		{"nested": []any{1, 2.5, nil, true, "ação"}},
	} {
		data, err := json.Marshal(object)
		require.NoError(t, err)
		e := &store.Event{ID: "evt_1<&>", Type: "payment.paid", Livemode: true, Data: data,
			CreatedAt: time.Date(2026, 11, 22, 12, 0, 0, 123456789, time.UTC)}
		created := e.CreatedAt.Truncate(time.Millisecond)
		v2, err := json.Marshal(envelopeV2{ID: e.ID, Type: e.Type, APIVersion: "v2", Created: created.Unix(),
			CreatedAt: jsonw.FormatTime(created), Livemode: e.Livemode, Data: envelopeData{Object: e.Data}, Source: Source})
		require.NoError(t, err)
		got, err := Envelope("v2", e)
		require.NoError(t, err)
		require.Equal(t, string(v2), string(got))
		v1, err := json.Marshal(envelopeV1{Event: e.Type, EventID: e.ID, CreatedAt: jsonw.FormatTime(created),
			Livemode: e.Livemode, Data: e.Data, Source: Source, APIVersion: "v1"})
		require.NoError(t, err)
		got, err = Envelope("v1", e)
		require.NoError(t, err)
		require.Equal(t, string(v1), string(got))
	}
}

// At a platform's webhook, a subaccount's event names the subaccount in
// "account"; at the subaccount's own, it does not.
func TestASubaccountsEventNamesItAtItsPlatform(t *testing.T) {
	t.Parallel()
	e := &store.Event{ID: "evt_1", Type: "payment.paid", AccountID: "acct_seller", Data: []byte(`{"id":"p"}`),
		CreatedAt: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)}
	created := e.CreatedAt
	for _, version := range []string{"v2", "v1"} {
		own, err := ForAccount(version, e, "acct_seller")
		require.NoError(t, err)
		atPlatform, err := ForAccount(version, e, "acct_platform")
		require.NoError(t, err)
		var want []byte
		if version == "v2" {
			want, err = json.Marshal(envelopeV2{ID: e.ID, Type: e.Type, APIVersion: "v2", Created: created.Unix(), CreatedAt: jsonw.FormatTime(created),
				Account: "acct_seller", Data: envelopeData{Object: e.Data}, Source: Source})
		} else {
			want, err = json.Marshal(envelopeV1{Event: e.Type, EventID: e.ID, CreatedAt: jsonw.FormatTime(created), Account: "acct_seller",
				Data: e.Data, Source: Source, APIVersion: "v1"})
		}
		require.NoError(t, err)
		require.Equal(t, string(want), string(atPlatform), version)
		require.NotContains(t, string(own), `"account"`, version)
	}
}
