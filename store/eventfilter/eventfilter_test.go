package eventfilter_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/store/eventfilter"
)

func object(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(s), &m))
	return m
}

// The example, and what an author can reach: the type, the mode,
// any field of the object; a missing field or another kind does not pass.
func TestFiltersMatchWhatTheyName(t *testing.T) {
	f, err := eventfilter.Compile(`data.object.amount_cents >= 10000 && data.object.metadata.channel == "loja"`)
	require.NoError(t, err)
	big := `{"amount_cents": 12000, "metadata": {"channel": "loja"}}`
	require.True(t, f.Match("payment.paid", false, object(t, big)))
	require.False(t, f.Match("payment.paid", false, object(t, `{"amount_cents": 9999, "metadata": {"channel": "loja"}}`)))
	require.False(t, f.Match("payment.paid", false, object(t, `{"amount_cents": 12000, "metadata": {"channel": "site"}}`)))
	require.False(t, f.Match("payment.paid", false, object(t, `{"amount_cents": 12000, "metadata": {}}`)), "a missing key: no")
	require.False(t, f.Match("payment.paid", false, object(t, `{"amount_cents": "12000", "metadata": {"channel": "loja"}}`)), "another kind: no")

	for src, want := range map[string]bool{
		`type == "payment.paid" && livemode == false`:                                 true,
		`has(data.object.metadata.channel) && data.object.metadata.channel == "loja"`: true,
		`has(data.object.customer) && data.object.customer != null`:                   false,
		`data.object.amount_cents > 11999.5`:                                          true,
		`data.object.splits.size() == 0`:                                              true,
		`data.object.splits.exists(s, s.account == "acct_x")`:                         false,
	} {
		f, err := eventfilter.Compile(src)
		require.NoError(t, err, src)
		require.Equal(t, want, f.Match("payment.paid", false,
			object(t, `{"amount_cents": 12000, "metadata": {"channel": "loja"}, "customer": null, "splits": []}`)), src)
	}
}

// Refused when saved, saying why: not CEL, not true or false, a name it
// does not know, too long.
func TestFiltersAreCheckedWhenSaved(t *testing.T) {
	for src, says := range map[string]string{
		`data.object.amount_cents >=`:            "Syntax error",
		`data.object.amount_cents + 1`:           "must be true or false",
		`payment.amount_cents > 1`:               "undeclared reference",
		strings.Repeat("true && ", 200) + "true": "longer than 1000",
	} {
		_, err := eventfilter.Compile(src)
		require.Error(t, err, src)
		require.True(t, eventfilter.IsRefused(err), src)
		require.Contains(t, err.Error(), says, src)
	}
}
