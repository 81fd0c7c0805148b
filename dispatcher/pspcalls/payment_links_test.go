package pspcalls_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// Live, through the sandbox: a payer at a live payment link's page gets a
// charge of their own registered at the PSP (a cob with their name and
// CPF as devedor), pays it from their bank, and the link counts the use.
func TestLivePaymentLinkChargesArePaidAtThePSP(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{}), webtest.WithRunningDispatcher())
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payment_links", Key: s.LiveKey, Body: map[string]any{
		"description": "Ingresso", "amount_cents": 2_500, "collect": []string{"name", "document"}, "max_uses": 1}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	link := r.JSON(t)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	form := url.Values{"name": {"Ana Lima"}, "document": {"529.982.247-25"}}
	res, err := client.Post(link["url"].(string), "application/x-www-form-urlencoded", strings.NewReader(form.Encode()))
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	id := strings.TrimPrefix(res.Header.Get("Location"), "/pay/")
	var p map[string]any
	eventually(t, 15*time.Second, func() bool {
		p = s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + id, Key: s.LiveKey}).JSON(t)
		return p["correlation_id"] != nil && p["pix"].(map[string]any)["br_code"] != nil
	}, func() string { return dumpCalls(t, s) })
	require.Equal(t, []any{true, link["id"], map[string]any{"name": "Ana Lima", "document": "52998224725", "email": nil, "phone": nil}},
		[]any{p["livemode"], p["payment_link"], p["customer"]})
	s.PSP.Pay(p["correlation_id"].(string))
	s.WaitForPayment(s.LiveKey, id, "paid", 10*time.Second)
	got := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payment_links/" + link["id"].(string), Key: s.LiveKey}).JSON(t)
	require.Equal(t, []any{1.0, 2_500.0, false}, []any{got["uses"], got["amount_received_cents"], got["available"]})
	require.Zero(t, s.PSP.State().Counts["nonconforming"], "%s", s.PSP.Logs())
	s.LedgerMatchesBalance(liveScope(s))
}
