package dispatcher_test

import (
	"encoding/json"
	"flag"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/dispatcher/envelope"
	"payments/store"
)

var update = flag.Bool("update", false, "rewrite golden files")

func goldenEvent() *store.Event {
	return &store.Event{
		ID: "evt_0352CntG5RLgY6g5QhvGjF", AccountID: "acct_x", Livemode: false, Type: "payment.paid",
		ObjectID:  "01a20507-afcb-7000-abbb-46bb2a59f564",
		Data:      json.RawMessage(`{"id":"01a20507-afcb-7000-abbb-46bb2a59f564","object":"payment","status":"paid","amount_cents":12990}`),
		CreatedAt: time.Date(2026, 11, 22, 20, 51, 59, 563_456_000, time.UTC),
	}
}

// TestEnvelopeGolden pins the exact bytes of both envelope versions.
func TestEnvelopeGolden(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"v1", "v2"} {
		got, err := envelope.Envelope(version, goldenEvent())
		require.NoError(t, err)
		path := "testdata/envelope_" + version + ".golden.json"
		if *update {
			require.NoError(t, os.WriteFile(path, append(got, '\n'), 0o644))
		}
		want, err := os.ReadFile(path)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got)+"\n", version)
	}
	_, err := envelope.Envelope("v3", goldenEvent())
	require.Error(t, err)
}
