package views_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/a-h/templ"
	"github.com/stretchr/testify/require"

	"payments/views"
)

func render(t *testing.T, c templ.Component) *goquery.Document {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, c.Render(context.Background(), &buf))
	doc, err := goquery.NewDocumentFromReader(&buf)
	require.NoError(t, err)
	return doc
}

func TestPaymentsTable(t *testing.T) {
	t.Parallel()
	doc := render(t, views.Payments(views.PaymentsPage{
		Nav:      views.Nav{Email: "owner@example.com", CSRFToken: "tok<en>"},
		Statuses: []string{"pending", "paid"},
		Status:   "paid",
		Rows: []views.PaymentRow{
			{ID: "p1", Status: "paid", AmountLabel: "R$ 10,00", ExternalID: "order-1", Customer: "<script>x</script>"},
			{ID: "p2", Status: "expired", AmountLabel: "R$ 0,01"},
		},
		NextURL: "/dashboard/payments?starting_after=p2",
	}))
	rows := doc.Find(`[data-testid="payment-row"]`)
	require.Equal(t, 2, rows.Length())
	require.Equal(t, "p1", rows.First().AttrOr("data-payment-id", ""))
	require.Equal(t, "Pago", rows.First().Find(`[data-testid="status"]`).Text(), "statuses in words, Portuguese by default")
	require.Equal(t, "paid", rows.First().Find(`[data-testid="status"]`).AttrOr("data-status", ""))
	require.Equal(t, "pt-BR", doc.Find("html").AttrOr("lang", ""))
	require.Equal(t, "<script>x</script>", strings.TrimSpace(rows.First().Find("td").Eq(3).Text()), "text is escaped, not markup")
	require.Zero(t, doc.Find("td script").Length())
	require.Equal(t, "paid", doc.Find(`#status option[selected]`).AttrOr("value", ""))
	require.Equal(t, "/dashboard/payments?starting_after=p2", doc.Find(`[data-testid="next-page"]`).AttrOr("href", ""))
	require.Zero(t, doc.Find(`[data-testid="prev-page"]`).Length())
	require.Equal(t, "Modo de teste", doc.Find(`[data-testid="mode"]`).Text())
	require.Equal(t, `{"X-CSRF-Token": "tok<en>"}`, doc.Find("body").AttrOr("hx-headers", ""))
	require.Equal(t, "tok<en>", doc.Find(`form[action="/logout"] input[name="_csrf"]`).AttrOr("value", ""))
	for _, label := range []string{"status"} {
		require.Equal(t, 1, doc.Find(`label[for="`+label+`"]`).Length(), "labelled field %s", label)
	}
}

func TestPaymentsEmptyState(t *testing.T) {
	t.Parallel()
	doc := render(t, views.Payments(views.PaymentsPage{Nav: views.Nav{Livemode: true}}))
	require.Equal(t, 1, doc.Find(`[data-testid="payments-empty"]`).Length())
	require.Zero(t, doc.Find(`[data-testid="payments-table"]`).Length())
	require.Equal(t, "Modo real", doc.Find(`[data-testid="mode"]`).Text())
}

func TestLoginForm(t *testing.T) {
	t.Parallel()
	doc := render(t, views.Login(views.LoginForm{Email: "a@example.com", Error: "E-mail ou senha incorretos.", CSRFToken: "t1"}))
	require.Equal(t, "E-mail ou senha incorretos.", doc.Find(`[data-testid="login-error"]`).Text())
	require.Equal(t, "a@example.com", doc.Find("#email").AttrOr("value", ""))
	require.Equal(t, "", doc.Find("#password").AttrOr("value", ""), "a password is never rendered back")
	require.Equal(t, "t1", doc.Find(`input[name="_csrf"]`).AttrOr("value", ""))
	require.Equal(t, 1, doc.Find(`label[for="email"]`).Length())
	require.Equal(t, 1, doc.Find(`label[for="password"]`).Length())

	clean := render(t, views.Login(views.LoginForm{}))
	require.Zero(t, clean.Find(`[data-testid="login-error"]`).Length())
}

func TestErrorPage(t *testing.T) {
	t.Parallel()
	doc := render(t, views.Error(views.ErrorPage{Status: 404, Title: "Not Found", Message: "No such page.", RequestID: "req_1"}))
	require.Contains(t, doc.Find(`[data-testid="error-page"]`).Text(), "No such page.")
	require.Contains(t, doc.Find(`[data-testid="error-page"] code`).Text(), "req_1")
}

// Only a pending charge shows a code; the card polls while the charge can
// still change by itself, and a final state stops the polling.
func TestCheckoutCardInEveryState(t *testing.T) {
	t.Parallel()
	base := views.CheckoutPage{PaymentID: "p1", AmountLabel: "R$ 1,00", BRCode: "000201...", QRCodeURL: "/pay/p1/qr.png",
		ExpiresAt: "2026-11-24T12:00:00Z", ExpiresLabel: "24/11/2026 09:00"}
	for state, want := range map[string]struct {
		polls bool
		text  string
	}{
		"pending": {true, "Aguardando o seu Pix"}, "preparing": {true, "Preparando a cobrança"}, "paid": {false, "Pagamento confirmado"},
		"expired": {false, "expirou"}, "canceled": {false, "cancelada"}, "refunded": {false, "Pagamento devolvido"},
	} {
		p := base
		p.State = state
		doc := render(t, views.CheckoutCard(p))
		card := doc.Find(`#checkout`)
		require.Equal(t, state, card.AttrOr("data-state", ""))
		_, polls := card.Attr("hx-trigger")
		require.Equal(t, want.polls, polls, "%s polls", state)
		require.Contains(t, card.Find(`[data-testid="checkout-status"]`).Text(), want.text, state)
		shows := doc.Find(`[data-testid="checkout-qr"], [data-testid="checkout-brcode"]`).Length()
		if state == "pending" {
			require.Equal(t, 2, shows)
			require.Equal(t, "/pay/p1/status", card.AttrOr("hx-get", ""))
		} else {
			require.Zero(t, shows, "%s shows no code", state)
		}
	}
}
