package versions

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRoutesMatchTheirPatternsOnly(t *testing.T) {
	require.Equal(t, "POST /api/v1/webhooks/:id/rotate_secret", API.Route("POST", "/api/v1/webhooks/wh_1/rotate_secret"))
	require.Equal(t, "POST /api/v1/webhooks", API.Route("POST", "/api/v1/webhooks"))
	require.Equal(t, resendRoute, API.Route("POST", "/api/v1/webhooks/wh_1/deliveries/whd_2/resend"))
	for _, miss := range [][2]string{{"GET", "/api/v1/webhooks"}, {"POST", "/api/v1/webhooks/wh_1"}, {"POST", "/api/v1/webhooks//rotate_secret"},
		{"POST", "/api/v1/webhooks/wh_1/rotate_secret/x"}, {"POST", "/api/v1/payments"}} {
		require.Empty(t, API.Route(miss[0], miss[1]), miss)
	}
}

// A chain of changes runs newest first on the way back (answers, objects)
// and oldest first on the way forward (requests); the current version's
// bytes are never touched.
func TestConvertersRunInOrder(t *testing.T) {
	var order []string
	step := func(name string) func(*Object) error {
		return func(o *Object) error {
			order = append(order, name)
			return o.Set(name, true)
		}
	}
	list := List{{Date: "a"}, {Date: "b", Changes: []Change{{Routes: []string{"GET /x"}, Response: step("b"), EventTypes: []string{"payment.paid"}, Object: step("b"),
		Request: func(_ string, body []byte) []byte { return append(body, 'b') }}}},
		{Date: "c", Changes: []Change{{Routes: []string{"GET /x"}, Response: step("c"), EventTypes: []string{"payment.paid"}, Object: step("c"),
			Request: func(_ string, body []byte) []byte { return append(body, 'c') }}}}}
	body := []byte(`{"z":1,"amount":12345678901234567890}`)
	same, err := list.Response("c", "GET /x", body)
	require.NoError(t, err)
	require.Equal(t, &body[0], &same[0], "the current version's answer, untouched")
	old, err := list.Response("a", "GET /x", body)
	require.NoError(t, err)
	require.Equal(t, `{"z":1,"amount":12345678901234567890,"c":true,"b":true}`, string(old), "order and numbers kept")
	require.Equal(t, []string{"c", "b"}, order)
	obj, err := list.Object("b", "payment.paid", body)
	require.NoError(t, err)
	require.Equal(t, `{"z":1,"amount":12345678901234567890,"c":true}`, string(obj))
	untouched, err := list.Object("a", "refund.created", body)
	require.NoError(t, err)
	require.Equal(t, string(body), string(untouched))
	require.Equal(t, "xbc", string(list.Request("a", "GET /x", []byte("x"))))
	require.True(t, list.ChangesRequest("a", "GET /x"))
	require.False(t, list.ChangesRequest("c", "GET /x"))
	_, err = list.Response("a", "GET /x", []byte(`[1]`))
	require.Error(t, err)
}

func TestOldRoutesKeepOnlyWhatTheyRead(t *testing.T) {
	require.Nil(t, keepMembers([]byte(`{"reason":"x"}`)))
	require.Nil(t, keepMembers([]byte(`not json`), "date"))
	require.Equal(t, `{"amount_cents":300}`, string(keepMembers([]byte(`{"reason":"x","amount_cents":300}`), "amount_cents", "description")))
	require.Equal(t, `{"amount_cents":300}`, string(API.Request("2026-11-26", refundRoute, []byte(`{"amount_cents":300,"reason":"x"}`))))
	require.Equal(t, `{"amount_cents":300,"reason":"x"}`, string(API.Request("2026-11-27", refundRoute, []byte(`{"amount_cents":300,"reason":"x"}`))))
}

func TestEveryVersionIsNamedAndDated(t *testing.T) {
	require.Equal(t, []string{"2026-11-26", "2026-11-27", "2026-11-28"}, API.Dates())
	require.Equal(t, "2026-11-28", API.Current())
	for _, v := range API[1:] {
		require.NotEmpty(t, v.Changes, v.Date)
		for _, c := range v.Changes {
			require.NotEmpty(t, c.Summary)
			require.NotEmpty(t, c.Resumo)
			for _, r := range c.Routes {
				method, path, ok := strings.Cut(r, " ")
				require.True(t, ok, r)
				require.Contains(t, []string{"GET", "POST", "DELETE"}, method, r)
				require.True(t, strings.HasPrefix(path, "/api/v1/"), r)
			}
		}
	}
}

// API_CHANGELOG.md is what the versions say (make generate writes it).
func TestTheChangelogFileIsTheVersions(t *testing.T) {
	file, err := os.ReadFile("../API_CHANGELOG.md")
	require.NoError(t, err)
	require.Equal(t, API.Changelog(), string(file), "run `make generate` and commit API_CHANGELOG.md")
}
