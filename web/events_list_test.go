package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// The dashboard's Eventos lists every event of the account newest first,
// each with where it was delivered (a webhook's delivery, its status and
// attempts, linked to its page) and what it is about (linked); filtered by
// type and by days in the account's zone; 25 a page with the filter kept;
// another account's events never show; a bad filter is a 400.
func TestDashboardEventsList(t *testing.T) {
	t.Parallel()
	f := newReportFixture(t)
	s := f.s
	recv := webtest.NewReceiver(t, nil)
	hook, _ := s.CreateWebhook(recv.URL, map[string]any{"events": []string{"payment.paid"}, "name": "ERP"})
	first := f.paid(1_000, nil) // 2 March in Brasília: payment.created, payment.paid
	f.at("2026-03-03", 1)       // 22:00 of the 2nd there
	late := f.paid(2_000, nil)
	f.at("2026-03-03", 14)
	for range 30 {
		f.api("POST", "/api/v1/payments", map[string]any{"amount_cents": 500}, http.StatusCreated) // the 3rd: 30 payment.created
	}
	s.Dispatcher.RunOnce(context.Background(), 10)
	recv.WaitFor(2, 5*time.Second)
	_, otherKey, _ := s.NewAccount("Outra Loja", "outra@example.com")
	require.Equal(t, http.StatusCreated, s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: otherKey,
		Body: map[string]any{"amount_cents": 900}}).Status)

	ownerFor(t, s, s.Account.ID, "dona@example.com")
	b := newBrowser(t, s)
	b.login("dona@example.com", "correct-horse-battery")
	rows := func(path string) (*goquery.Selection, page) {
		t.Helper()
		p := b.do("GET", path, nil, nil)
		require.Equal(t, http.StatusOK, p.status, path)
		return p.doc.Find(`[data-testid="list-row"]`), p
	}

	day2, _ := rows("/dashboard/events?since=2026-03-02&until=2026-03-02")
	var types []string
	day2.Each(func(_ int, r *goquery.Selection) { types = append(types, r.AttrOr("data-type", "")) })
	require.Equal(t, []string{"payment.paid", "payment.created", "payment.paid", "payment.created"}, types,
		"the 2nd in Brasília, 22:00 included, newest first")
	paidRow := day2.First()
	require.Equal(t, "/dashboard/payments/"+late, paidRow.Find(`[data-testid="event-object"]`).AttrOr("href", ""))
	delivery := paidRow.Find(`[data-testid="event-delivery"]`)
	require.Equal(t, 1, delivery.Length())
	require.Equal(t, "succeeded", delivery.AttrOr("data-status", ""))
	require.True(t, strings.HasPrefix(delivery.Find("a").AttrOr("href", ""), "/dashboard/webhooks/"+hook+"/deliveries/whd_"))
	require.Equal(t, "ERP", delivery.Find("a").Text())
	require.Contains(t, paidRow.Find(`[data-testid="event-deliveries-summary"]`).Text(), "1 concluídas")
	require.Contains(t, day2.Eq(1).Find(`[data-testid="event-deliveries-summary"]`).Text(), "Nenhum webhook")

	paid, _ := rows("/dashboard/events?type=payment.paid")
	require.Equal(t, 2, paid.Length())
	require.Equal(t, "/dashboard/payments/"+first, paid.Last().Find(`[data-testid="event-object"]`).AttrOr("href", ""))

	created, p := rows("/dashboard/events?type=payment.created&since=2026-03-03")
	require.Equal(t, 25, created.Length(), "this account's only")
	next := p.doc.Find(`[data-testid="next-page"]`).AttrOr("href", "")
	require.Contains(t, next, "type=payment.created", "the filter kept")
	created, _ = rows(next)
	require.Equal(t, 5, created.Length(), "30 made on the 3rd")
	everything, p := rows("/dashboard/events")
	require.Equal(t, 25, everything.Length())
	next = p.doc.Find(`[data-testid="next-page"]`).AttrOr("href", "")
	require.Contains(t, next, "starting_after=evt_")
	rest, p := rows(next)
	require.Equal(t, 34-25, rest.Length(), "34 events in all: 32 created and 2 paid")
	require.Empty(t, p.doc.Find(`[data-testid="next-page"]`).Nodes)

	for _, bad := range []string{"/dashboard/events?type=nope", "/dashboard/events?since=03/02/2026", "/dashboard/events?starting_after=evt_nope"} {
		require.Equal(t, http.StatusBadRequest, b.do("GET", bad, nil, nil).status, bad)
	}
}
