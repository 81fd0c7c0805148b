package views_test

import (
	"bytes"
	"context"
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
	require.Equal(t, "paid", rows.First().Find(`[data-testid="status"]`).Text())
	require.Equal(t, "<script>x</script>", rows.First().Find("td").Eq(3).Text(), "text is escaped, not markup")
	require.Zero(t, doc.Find("td script").Length())
	require.Equal(t, "paid", doc.Find(`#status option[selected]`).AttrOr("value", ""))
	require.Equal(t, "/dashboard/payments?starting_after=p2", doc.Find(`[data-testid="next-page"]`).AttrOr("href", ""))
	require.Zero(t, doc.Find(`[data-testid="prev-page"]`).Length())
	require.Equal(t, "Test mode", doc.Find(`[data-testid="mode"]`).Text())
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
	require.Equal(t, "Live", doc.Find(`[data-testid="mode"]`).Text())
}

func TestLoginForm(t *testing.T) {
	t.Parallel()
	doc := render(t, views.Login(views.LoginForm{Email: "a@example.com", Error: "The e-mail or password is incorrect.", CSRFToken: "t1"}))
	require.Equal(t, "The e-mail or password is incorrect.", doc.Find(`[data-testid="login-error"]`).Text())
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

func TestCheckoutStatusPollsOnlyWhilePending(t *testing.T) {
	t.Parallel()
	pending := render(t, views.CheckoutStatus(views.CheckoutPage{PaymentID: "p1", Status: "pending"}))
	s := pending.Find(`[data-testid="checkout-status"]`)
	require.Equal(t, "/pay/p1/status", s.AttrOr("hx-get", ""))
	require.Equal(t, "every 2s", s.AttrOr("hx-trigger", ""))
	for _, status := range []string{"paid", "expired", "canceled"} {
		done := render(t, views.CheckoutStatus(views.CheckoutPage{PaymentID: "p1", Status: status}))
		sel := done.Find(`[data-testid="checkout-status"]`)
		require.Equal(t, status, sel.AttrOr("data-status", ""))
		_, polls := sel.Attr("hx-trigger")
		require.False(t, polls, "%s stops the polling", status)
	}
	expired := render(t, views.Checkout(views.CheckoutPage{PaymentID: "p1", Status: "expired", AmountLabel: "R$ 1,00"}))
	require.Zero(t, expired.Find(`[data-testid="checkout-qr"]`).Length(), "no QR code for a charge that cannot be paid")
	require.Contains(t, expired.Find(`[data-testid="checkout-status"]`).Text(), "can no longer be paid")
}
