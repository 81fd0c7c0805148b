package web_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// The dashboard lists the account's refunds, disputes and payouts, newest
// first, each filtered by status and by days in the account's zone (a day
// is the account's, not UTC's), paged by cursor with the filter kept; a
// bad filter is a 400 in words, and another account's rows never show.
func TestDashboardMoneyLists(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC) // noon in Brasília
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	setDay := func(day string, hourUTC int) {
		d, err := time.Parse(time.DateOnly, day)
		require.NoError(t, err)
		mu.Lock()
		now = d.Add(time.Duration(hourUTC) * time.Hour)
		mu.Unlock()
	}
	s := webtest.New(t, webtest.WithClock(clock))
	api := func(method, path string, body map[string]any, want int) map[string]any {
		t.Helper()
		req := webtest.Request{Method: method, Path: path, Key: s.TestKey}
		if body != nil {
			req.Body = body
		}
		r := s.Do(req)
		require.Equal(t, want, r.Status, "%s %s: %s", method, path, r.Body)
		return r.JSON(t)
	}
	paid := func(cents int) string {
		id := api("POST", "/api/v1/payments", map[string]any{"amount_cents": cents}, http.StatusCreated)["id"].(string)
		api("POST", "/api/v1/test_helpers/payments/"+id+"/pay", nil, http.StatusOK)
		return id
	}
	// Day 1 (2 March): two refunds. Day 2 (3 March, 01:30 UTC, still the
	// 2nd in Brasília, and 3 March 12:00 UTC): one more each side of midnight UTC.
	var refunds []string
	for range 2 {
		refunds = append(refunds, api("POST", "/api/v1/refunds", map[string]any{"payment": paid(10_000), "amount_cents": 1_000}, http.StatusCreated)["id"].(string))
	}
	setDay("2026-03-03", 1)
	refunds = append(refunds, api("POST", "/api/v1/refunds", map[string]any{"payment": paid(10_000), "amount_cents": 2_000}, http.StatusCreated)["id"].(string))
	setDay("2026-03-03", 12)
	refunds = append(refunds, api("POST", "/api/v1/refunds", map[string]any{"payment": paid(10_000), "amount_cents": 3_000}, http.StatusCreated)["id"].(string))
	api("POST", "/api/v1/test_helpers/refunds/"+refunds[0]+"/fail", nil, http.StatusOK)
	disputed := paid(5_000)
	dispute := api("POST", "/api/v1/test_helpers/payments/"+disputed+"/dispute", nil, http.StatusCreated)["id"].(string)
	payout := api("POST", "/api/v1/withdrawals", map[string]any{"amount_cents": 700, "pix_key": "ana@example.com"}, http.StatusCreated)["id"].(string)

	_, otherKey, _ := s.NewAccount("Outra Loja", "outra@example.com")
	otherPayment := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: otherKey, Body: map[string]any{"amount_cents": 900}})
	require.Equal(t, http.StatusCreated, otherPayment.Status)
	otherID := otherPayment.JSON(t)["id"].(string)
	require.Equal(t, http.StatusOK, s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + otherID + "/pay", Key: otherKey}).Status)
	require.Equal(t, http.StatusCreated, s.Do(webtest.Request{Method: "POST", Path: "/api/v1/refunds", Key: otherKey,
		Body: map[string]any{"payment": otherID}}).Status, "another account's refund")

	ownerFor(t, s, s.Account.ID, "dona@example.com")
	b := newBrowser(t, s)
	b.login("dona@example.com", "correct-horse-battery")
	ids := func(path string) []string {
		t.Helper()
		p := b.do("GET", path, nil, nil)
		require.Equal(t, http.StatusOK, p.status, path)
		var got []string
		p.doc.Find(`[data-testid="list-row"]`).Each(func(_ int, row *goquery.Selection) { got = append(got, row.AttrOr("data-id", "")) })
		return got
	}
	require.Equal(t, []string{refunds[3], refunds[2], refunds[1], refunds[0]}, ids("/dashboard/refunds"), "newest first")
	require.Equal(t, []string{refunds[0]}, ids("/dashboard/refunds?status=failed"))
	require.Equal(t, []string{refunds[2], refunds[1], refunds[0]}, ids("/dashboard/refunds?until=2026-03-02"),
		"01:30 UTC on the 3rd is the 2nd in Brasília")
	require.Equal(t, []string{refunds[3]}, ids("/dashboard/refunds?since=2026-03-03&until=2026-03-03"))
	require.Equal(t, []string{dispute}, ids("/dashboard/disputes?status=open"))
	require.Empty(t, ids("/dashboard/disputes?status=won"))
	require.Equal(t, []string{payout}, ids("/dashboard/withdrawals"))

	row := b.do("GET", "/dashboard/refunds?status=failed", nil, nil).doc.Find(`[data-testid="list-row"]`)
	require.Equal(t, "R$ 10,00", strings.TrimSpace(row.Find(`[data-testid="list-amount"]`).Text()))
	require.Equal(t, "/dashboard/payments/", row.Find(`[data-testid="list-subject"]`).AttrOr("href", "")[:len("/dashboard/payments/")])
	require.Equal(t, "02/03/2026 12:00", strings.TrimSpace(row.Find(`[data-testid="list-created"]`).Text()), "in the account's zone")

	for range 22 { // 26 in all: a page of 25 and one more
		api("POST", "/api/v1/refunds", map[string]any{"payment": paid(1_000)}, http.StatusCreated)
	}
	first := b.do("GET", "/dashboard/refunds?since=2026-03-02", nil, nil)
	require.Equal(t, 25, first.doc.Find(`[data-testid="list-row"]`).Length())
	next := first.doc.Find(`[data-testid="next-page"]`).AttrOr("href", "")
	require.Contains(t, next, "since=2026-03-02", "the next page keeps the filter")
	require.Equal(t, []string{refunds[0]}, ids(next))

	bad := b.do("GET", "/dashboard/refunds?since=ontem", nil, nil)
	require.Equal(t, http.StatusBadRequest, bad.status)
	require.Equal(t, http.StatusBadRequest, b.do("GET", "/dashboard/disputes?status=paid", nil, nil).status)
}
