package web_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"payments/pix"
	"payments/pix/calendar"
	"payments/web/webtest"
)

// A payment's page tells where its money stands, on a laptop and a phone:
// partly refunded, disputed and refunded in full each read so, with what
// went back and what is left; once paid it says when, and neither its
// expiry nor its payment link are offered any more. The list says the same.
func TestBrowserPaymentTellsTheMoneysTruth(t *testing.T) {
	t.Parallel()
	for _, vp := range viewports {
		t.Run(vp.name, func(t *testing.T) {
			t.Parallel()
			moneysTruth(t, vp)
		})
	}
}

func moneysTruth(t *testing.T, vp viewport) {
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	api := func(method, path string, body any) map[string]any {
		t.Helper()
		r := s.Do(webtest.Request{Method: method, Path: path, Key: s.TestKey, Body: body})
		require.Equal(t, http.StatusOK, r.Status, "%s %s: %s", method, path, r.Body)
		return r.JSON(t)
	}
	partly := s.Fund(s.TestKey, 246_912)
	afterRefund := api("POST", "/api/v1/payments/"+partly+"/refund", map[string]any{"amount_cents": 100_050})
	fee := int64(afterRefund["fee_cents"].(float64))
	net := int64(afterRefund["net_cents"].(float64))
	require.Equal(t, 246_912-fee-100_050+fee*100_050/246_912, net)
	disputed := s.Fund(s.TestKey, 3_000)
	s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + disputed + "/dispute", Key: s.TestKey})
	whole := s.Fund(s.TestKey, 5_000)
	api("POST", "/api/v1/payments/"+whole+"/refund", nil)
	pending := s.CreatePayment(map[string]any{"amount_cents": 1_000})["id"].(string)
	// A due-date charge paid ten days late: the payer paid fine and
	// interest on top of its R$ 1.000,00.
	due := calendar.Today(time.Now()).AddDays(1)
	late := s.CreatePayment(map[string]any{"amount_cents": 100_000, "due_date": due.String(), "days_after_due": 30,
		"fine": map[string]any{"percent": "2.00"}, "interest": map[string]any{"percent_per_month": "1.00"},
		"customer": map[string]any{"name": "Nova Tech Ltda", "email": "f@novatech.example", "document": "12ABC34501DE35"}})["id"].(string)
	paidLate := api("POST", "/api/v1/test_helpers/payments/"+late+"/pay", map[string]any{"date": due.AddDays(10).String()})
	require.Greater(t, paidLate["amount_paid_cents"].(float64), float64(102_000), "a fine of 2% and interest")

	ctx := newBrowserContext(t, vp)
	require.NoError(t, chromedp.Run(ctx, signIn(s, "dona@example.com")))
	type page struct {
		standing, net, refunded string
		paid                    bool
	}
	read := func(id string) (p page, expires, link int) {
		t.Helper()
		require.NoError(t, chromedp.Run(ctx,
			chromedp.Navigate(s.URL+"/dashboard/payments/"+id),
			chromedp.WaitVisible(`[data-testid="payment-fields"]`, chromedp.ByQuery),
			chromedp.Text(`h1 + [data-testid="status"]`, &p.standing, chromedp.ByQuery),
			chromedp.Text(`[data-testid="payment-net"]`, &p.net, chromedp.ByQuery),
			chromedp.Evaluate(`document.querySelector('[data-testid="payment-refunded"]')?.innerText ?? ''`, &p.refunded),
			chromedp.Evaluate(`!!document.querySelector('[data-testid="payment-paid-at"]')`, &p.paid),
			chromedp.Evaluate(`document.querySelectorAll('[data-testid="payment-expires"]').length`, &expires),
			chromedp.Evaluate(`document.querySelectorAll('[data-testid="checkout-link"]').length`, &link),
		), id)
		checkPage(t, ctx, "payment "+id)
		return p, expires, link
	}

	// Every page's money lines add up: each total is the parts above it.
	type line struct {
		Label, Sign, Amount string
		Total               bool
	}
	lines := func(id string) map[string]int64 {
		t.Helper()
		var got []line
		require.NoError(t, chromedp.Run(ctx,
			chromedp.Navigate(s.URL+"/dashboard/payments/"+id),
			chromedp.WaitVisible(`[data-testid="payment-money"]`, chromedp.ByQuery),
			chromedp.Evaluate(`[...document.querySelectorAll('[data-testid="money-line"]')].map(l => ({
				Label: l.querySelector('dt').innerText.trim(),
				Sign: (l.querySelector('[data-testid="money-sign"]')?.innerText ?? '').trim(),
				Amount: l.querySelector('dd > span:last-child').innerText.trim(),
				Total: l.hasAttribute('data-total')}))`, &got)))
		require.NotEmpty(t, got)
		byLabel := map[string]int64{}
		var running int64
		for i, l := range got {
			amount, negative := strings.CutPrefix(strings.ReplaceAll(l.Amount, "\u00a0", " "), "-")
			cents, ok := pix.ParseBRL(amount)
			require.True(t, ok, "%q", l.Amount)
			if negative {
				cents = -cents
			}
			switch {
			case l.Total:
				require.Equal(t, running, cents, "%s: %q is not what the lines above add up to: %v", id, l.Label, got)
			case i == 0:
				require.Empty(t, l.Sign)
				running = cents
			case l.Sign == "+":
				running += cents
			case l.Sign == "−":
				running -= cents
			default:
				t.Fatalf("%s: a part without its sign: %v", id, l)
			}
			byLabel[l.Label] = map[string]int64{"": cents, "+": cents, "−": -cents}[l.Sign]
		}
		return byLabel
	}
	money := lines(partly)
	require.Equal(t, map[string]int64{"Valor da cobrança": 246_912, "Tarifa": -fee, "Tarifa devolvida": fee * 100_050 / 246_912,
		"Devolvido ao pagador": -100_050, "Líquido": net}, money, "the fee given back is a line of its own")
	money = lines(disputed)
	held := money["Retido em disputa (MED)"]
	require.Negative(t, held)
	require.Equal(t, money["Líquido"]+held, money["Líquido disponível"])
	money = lines(pending)
	require.Equal(t, int64(1_000), money["Valor da cobrança"])
	require.Contains(t, money, "Líquido", "what it will leave, as the API's net_cents says")
	money = lines(late)
	paid := int64(paidLate["amount_paid_cents"].(float64))
	require.Equal(t, map[string]int64{"Valor da cobrança": 100_000, "Multa": 2_000, "Juros": paid - 102_000, "Pago pelo pagador": paid,
		"Tarifa": -int64(paidLate["fee_cents"].(float64)), "Líquido": int64(paidLate["net_cents"].(float64))}, money)
	var headline string
	require.NoError(t, chromedp.Run(ctx, chromedp.Text(`[data-testid="payment-headline"]`, &headline, chromedp.ByQuery)))
	require.Equal(t, pix.FormatBRL(paid), strings.ReplaceAll(headline, "\u00a0", " "), "headed by what was paid, not the face value")

	p, expires, link := read(partly)
	require.Equal(t, page{"Parcialmente devolvido", pix.FormatBRL(net), "R$ 1.000,50", true}, p)
	require.Zero(t, expires+link, "a paid payment offers neither expiry nor payment link")
	p, expires, link = read(disputed)
	require.Equal(t, "Em disputa", p.standing)
	require.True(t, p.paid)
	require.Zero(t, expires+link)
	p, expires, link = read(whole)
	require.Equal(t, page{"Devolvido", "R$ 0,00", "R$ 50,00", true}, p)
	require.Zero(t, expires+link)
	p, expires, link = read(pending)
	require.Equal(t, "Pendente", p.standing)
	require.False(t, p.paid)
	require.Equal(t, 2, expires+link, "a pending charge shows when it expires and the link to pay it")

	var standings map[string]string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(s.URL+"/dashboard/payments"),
		chromedp.WaitVisible(`[data-testid="payments-table"]`, chromedp.ByQuery),
		chromedp.Evaluate(`Object.fromEntries([...document.querySelectorAll('[data-testid="payment-row"]')].map(r =>
			[r.dataset.paymentId, r.querySelector('[data-testid="status"]').innerText]))`, &standings)))
	require.Equal(t, map[string]string{partly: "Parcialmente devolvido", disputed: "Em disputa", whole: "Devolvido", pending: "Pendente",
		late: "Pago"}, standings)
}
