package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/pix"
	"payments/web/webtest"
)

// The overview shows what split charges moved: a platform's card what it
// passed on, its seller's what it got; an account that split nothing has
// no such card.
func TestOverviewShowsWhatSplitsMoved(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/subaccounts", Key: s.TestKey, Body: map[string]any{"name": "Padaria",
		"document": "529.982.247-25", "email": "p@example.com", "pix_key": "p@example.com"}})
	require.Equal(t, http.StatusCreated, r.Status)
	seller := r.JSON(t)["id"].(string)
	ownerFor(t, s, seller, "padeiro@example.com")
	card := func(email string) (string, int) {
		b := newBrowser(t, s)
		require.Equal(t, http.StatusSeeOther, b.login(email, "correct-horse-battery").status)
		page := b.do("GET", "/dashboard", nil, nil)
		require.Equal(t, http.StatusOK, page.status)
		found := page.doc.Find(`[data-testid="overview-card"][data-key="splits"] [data-testid="card-value"]`)
		return strings.ReplaceAll(found.Text(), "\u00a0", " "), found.Length()
	}
	_, n := card("dona@example.com")
	require.Zero(t, n, "no split yet, no card")

	p := s.CreatePayment(map[string]any{"amount_cents": 10_000, "splits": []any{map[string]any{"account": seller, "amount_cents": 3_000}}})
	require.Equal(t, http.StatusOK, s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + p["id"].(string) + "/pay", Key: s.TestKey}).Status)
	given, _ := card("dona@example.com")
	got, _ := card("padeiro@example.com")
	require.Equal(t, []string{"-R$ 30,00", "R$ 30,00"}, []string{given, got})

	// The payment's page: each part, and what the charge's account keeps.
	b := newBrowser(t, s)
	require.Equal(t, http.StatusSeeOther, b.login("dona@example.com", "correct-horse-battery").status)
	page := b.do("GET", "/dashboard/payments/"+p["id"].(string), nil, nil)
	require.Equal(t, http.StatusOK, page.status)
	part := page.doc.Find(`[data-testid="payment-split"]`)
	require.Equal(t, 1, part.Length())
	require.Contains(t, part.Text(), "Padaria")
	require.Equal(t, "R$ 30,00", strings.ReplaceAll(part.Find(`[data-testid="split-part"]`).Text(), "\u00a0", " "))
	paid := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + p["id"].(string), Key: s.TestKey}).JSON(t)
	kept := page.doc.Find(`[data-testid="payment-split-kept"]`).Text()
	require.Contains(t, strings.ReplaceAll(kept, "\u00a0", " "), pix.FormatBRL(10_000-int64(paid["fee_cents"].(float64))-3_000))
}
