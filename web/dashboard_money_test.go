package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"payments/pix"
	"payments/pix/apipix/sandboxtest"
	"payments/store"
	"payments/store/ids"
	"payments/store/storetest"
	"payments/web/webtest"
)

func payTest(t *testing.T, s *webtest.Server, amount int) string {
	t.Helper()
	id := s.CreatePayment(map[string]any{"amount_cents": amount})["id"].(string)
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + id + "/pay", Key: s.TestKey})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	return id
}

func TestBalancePageWithdrawals(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	payTest(t, s, 100_000) // fee 990: available R$ 990,10
	b := newBrowser(t, s)
	require.Equal(t, http.StatusSeeOther, b.login("owner@example.com", "correct-horse-battery").status)

	pg := b.do("GET", "/dashboard/balance", nil, nil)
	require.Equal(t, http.StatusOK, pg.status)
	require.Equal(t, "R$ 990,10", pg.doc.Find(`[data-testid="balance-available"]`).Text())
	require.Equal(t, "R$ 0,00", pg.doc.Find(`[data-testid="balance-pending"]`).Text())
	require.Equal(t, 2, pg.doc.Find(`[data-testid="ledger-row"]`).Length(), "the payment and its fee")
	token := pg.doc.Find(`input[name="_csrf"]`).First().AttrOr("value", "")

	withdraw := func(amount, key string) page {
		return b.do("POST", "/dashboard/balance/withdrawals", url.Values{"_csrf": {token}, "amount": {amount}, "pix_key": {key}}, nil)
	}
	bad := withdraw("dez reais", "ana@example.com")
	require.Equal(t, http.StatusUnprocessableEntity, bad.status)
	require.Equal(t, "Digite um valor em reais, como 1.234,56.", bad.doc.Find(`[data-testid="amount-error"]`).Text())
	require.Equal(t, "ana@example.com", bad.doc.Find(`#pix_key`).AttrOr("value", ""), "the form keeps what was typed")
	bad = withdraw("10,00", "529.982.247-24")
	require.Equal(t, http.StatusUnprocessableEntity, bad.status)
	require.NotEmpty(t, bad.doc.Find(`[data-testid="pix-key-error"]`).Text())
	phone := withdraw("10,00", "(61) 98888-0000")
	require.Equal(t, http.StatusOK, phone.status, "a phone as Brazilians write it is a key: %s", phone.body)
	require.Contains(t, phone.doc.Find(`[data-testid="confirm-summary"]`).Text(), "+5561988880000")
	bad = withdraw("990,11", "ana@example.com")
	require.Equal(t, http.StatusUnprocessableEntity, bad.status, "more than is available is said before any confirmation")
	require.Equal(t, "Este valor é maior que o saldo disponível.", bad.doc.Find(`[data-testid="amount-error"]`).Text())
	require.Zero(t, bad.doc.Find(`[data-testid="confirmation"]`).Length())

	// The first post of a valid form asks first: amount in figures and in words, and the key.
	ask := b.do("POST", "/dashboard/balance/withdrawals", url.Values{"_csrf": {token}, "amount": {"500,00"}, "pix_key": {"Ana@Example.com"}}, nil)
	require.Equal(t, http.StatusOK, ask.status)
	summary := ask.doc.Find(`[data-testid="confirm-summary"]`).Text()
	require.Contains(t, summary, "R$ 500,00")
	require.Contains(t, summary, "quinhentos reais")
	require.Contains(t, summary, "ana@example.com (E-mail)")
	require.Equal(t, "R$ 990,10", b.do("GET", "/dashboard/balance", nil, nil).doc.Find(`[data-testid="balance-available"]`).Text(), "nothing moved yet")

	ok := b.do("POST", "/dashboard/balance/withdrawals", confirmForm(t, ask), nil)
	require.Equal(t, http.StatusSeeOther, ok.status)
	pg = b.do("GET", ok.header.Get("Location"), nil, nil)
	require.Contains(t, pg.doc.Find(`[data-testid="notice"]`).Text(), "Saque de R$ 500,00 para ana@example.com criado")
	require.Equal(t, "R$ 490,10", pg.doc.Find(`[data-testid="balance-available"]`).Text())
	rows := pg.doc.Find(`[data-testid="withdrawal-row"]`)
	require.Equal(t, 1, rows.Length())
	require.Equal(t, "pending", rows.Find(`[data-testid="status"]`).AttrOr("data-status", ""))
	wdID := rows.AttrOr("data-withdrawal-id", "")

	r := b.do("POST", "/dashboard/balance/withdrawals/"+wdID+"/fail", url.Values{"_csrf": {token}}, nil)
	require.Equal(t, http.StatusSeeOther, r.status)
	pg = b.do("GET", "/dashboard/balance", nil, nil)
	require.Equal(t, "Não realizado", pg.doc.Find(`[data-testid="withdrawal-row"] [data-testid="status"]`).Text())
	require.Equal(t, "R$ 990,10", pg.doc.Find(`[data-testid="balance-available"]`).Text(), "a failed withdrawal comes back")
	r = b.do("POST", "/dashboard/balance/withdrawals/"+wdID+"/complete", url.Values{"_csrf": {token}}, nil)
	require.Equal(t, http.StatusSeeOther, r.status)
	pg = b.do("GET", "/dashboard/balance", nil, nil)
	require.Equal(t, "Este saque já foi encerrado.", pg.doc.Find(`[data-testid="notice"][role="alert"]`).Text())

	// Live mode shows live money, and offers no simulation.
	b.do("POST", "/dashboard/mode", url.Values{"_csrf": {token}, "mode": {"live"}}, nil)
	pg = b.do("GET", "/dashboard/balance", nil, nil)
	require.Equal(t, "R$ 0,00", pg.doc.Find(`[data-testid="balance-available"]`).Text())
	require.Equal(t, 1, pg.doc.Find(`[data-testid="withdrawals-empty"]`).Length())
	require.Equal(t, http.StatusForbidden, b.do("POST", "/dashboard/balance/withdrawals/"+wdID+"/complete", url.Values{"_csrf": {token}}, nil).status)
}

func TestPaymentDetailShowsDisputesAndRefunds(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	id := payTest(t, s, 10_000)
	b := newBrowser(t, s)
	b.login("owner@example.com", "correct-horse-battery")
	detail := func() page {
		p := b.do("GET", "/dashboard/payments/"+id, nil, nil)
		require.Equal(t, http.StatusOK, p.status)
		return p
	}
	p := detail()
	require.Equal(t, 1, p.doc.Find(`[data-testid="refund-payment"]`).Length())
	require.Equal(t, 1, p.doc.Find(`[data-testid="simulate-dispute"]`).Length())
	token := p.doc.Find(`input[name="_csrf"]`).First().AttrOr("value", "")

	require.Equal(t, http.StatusSeeOther, b.do("POST", "/dashboard/payments/"+id+"/dispute", url.Values{"_csrf": {token}}, nil).status)
	p = detail()
	dispute := p.doc.Find(`[data-testid="dispute"]`)
	require.Equal(t, 1, dispute.Length())
	require.Equal(t, "Aberta", dispute.Find(`[data-testid="status"]`).Text())
	require.Zero(t, p.doc.Find(`[data-testid="refund-payment"]`).Length(), "no refund while a dispute holds the money")
	require.Zero(t, p.doc.Find(`[data-testid="simulate-dispute"]`).Length())
	require.Equal(t, 1, p.doc.Find(`[data-event-type="dispute.opened"]`).Length(), "the dispute's events are on the payment's timeline")

	// A refund forced past the hidden button is refused with a notice, before any confirmation.
	r := b.do("POST", "/dashboard/payments/"+id+"/refund", url.Values{"_csrf": {token}, "amount": {"100,00"}}, nil)
	require.Equal(t, http.StatusSeeOther, r.status)
	require.Contains(t, detail().doc.Find(`[data-testid="notice"]`).Text(), "disputa aberta")

	dspID := dispute.AttrOr("data-dispute-id", "")
	require.Equal(t, http.StatusSeeOther, b.do("POST", "/dashboard/disputes/"+dspID+"/lost", url.Values{"_csrf": {token}}, nil).status)
	p = detail()
	require.Equal(t, "Perdida", p.doc.Find(`[data-testid="dispute"] [data-testid="status"]`).Text())
	require.Equal(t, "refunded", p.doc.Find(`h1 + [data-testid="status"]`).AttrOr("data-status", ""))
	refund := p.doc.Find(`[data-testid="refund"]`)
	require.Equal(t, 1, refund.Length())
	require.Contains(t, refund.Text(), "Devolvido: disputa perdida")
	var types []string
	p.doc.Find(`[data-testid="event"]`).Each(func(_ int, e *goquery.Selection) { types = append(types, e.AttrOr("data-event-type", "")) })
	require.Equal(t, []string{"payment.created", "payment.paid", "dispute.opened", "dispute.lost", "payment.refunded"}, types)

	// Refunds from the dashboard: in parts, each confirmed with the amount in words and the payer.
	other := payTest(t, s, 3_000)
	p = b.do("GET", "/dashboard/payments/"+other, nil, nil)
	require.Equal(t, "30,00", p.doc.Find(`#refund-amount`).AttrOr("value", ""), "all that is left, by default")
	ask := b.do("POST", "/dashboard/payments/"+other+"/refund", url.Values{"_csrf": {token}, "amount": {"10,00"}}, nil)
	require.Equal(t, http.StatusOK, ask.status)
	require.Contains(t, ask.doc.Find(`[data-testid="confirm-summary"]`).Text(), "dez reais")
	r = b.do("POST", "/dashboard/payments/"+other+"/refund", url.Values{"_csrf": {token}, "amount": {"10,00"}, "confirmed": {"1"}}, nil)
	require.Equal(t, http.StatusOK, r.status, "confirmed without the page's token: asked again")
	require.Equal(t, 1, r.doc.Find(`[data-testid="confirmation"]`).Length())
	r = b.do("POST", "/dashboard/payments/"+other+"/refund", confirmForm(t, ask), nil)
	require.Equal(t, http.StatusSeeOther, r.status)
	p = b.do("GET", "/dashboard/payments/"+other, nil, nil)
	require.Equal(t, "Devolução de R$ 10,00 concluída.", p.doc.Find(`[data-testid="notice"]`).Text())
	require.Contains(t, p.doc.Find(`[data-testid="refund"]`).Text(), "Devolução solicitada")
	require.Equal(t, "20,00", p.doc.Find(`#refund-amount`).AttrOr("value", ""), "what is left")
	require.Equal(t, "partially_refunded", p.doc.Find(`h1 + [data-testid="status"]`).AttrOr("data-status", ""), "R$ 10,00 of R$ 30,00 back")
	r = b.confirm("/dashboard/payments/"+other+"/refund", url.Values{"_csrf": {token}, "amount": {"20,00"}}, nil)
	require.Equal(t, http.StatusSeeOther, r.status)
	p = b.do("GET", "/dashboard/payments/"+other, nil, nil)
	require.Equal(t, "refunded", p.doc.Find(`h1 + [data-testid="status"]`).AttrOr("data-status", ""))
	require.Zero(t, p.doc.Find(`[data-testid="refund-form"]`).Length(), "nothing left to refund")
	require.Zero(t, p.doc.Find(`[data-testid="payment-code"]`).Length(), "no QR or code on a refunded payment")
}

func TestSupportSeesPSPProblemsAndTransfers(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{}))
	_, err := s.Store.CreateUser(context.Background(), "help@example.com", "correct-horse-battery", store.RoleSupport, "")
	require.NoError(t, err)
	p := s.CreateLivePayment(map[string]any{"amount_cents": 4_000})
	s.PSP.Transfer(p["correlation_id"].(string), "39.99")
	s.PSP.Transfer("UNKNOWNTXID", "1.00")
	s.PSP.Pay(p["correlation_id"].(string))
	s.WaitForPayment(s.LiveKey, p["id"].(string), "paid", 10*time.Second)
	require.Eventually(t, func() bool {
		problems, err := s.Store.PixNotifications(context.Background(), true, 10)
		require.NoError(t, err)
		return len(problems) == 2
	}, 10*time.Second, 20*time.Millisecond)

	b := newBrowser(t, s)
	b.login("help@example.com", "correct-horse-battery")
	pg := b.do("GET", "/dashboard/support", nil, nil)
	var outcomes []string
	pg.doc.Find(`[data-testid="psp-problem"]`).Each(func(_ int, sel *goquery.Selection) { outcomes = append(outcomes, sel.AttrOr("data-outcome", "")) })
	require.ElementsMatch(t, []string{"amount_mismatch", "unknown_txid"}, outcomes)
	link := pg.doc.Find(`[data-outcome="amount_mismatch"] a`).AttrOr("href", "")
	require.Equal(t, "/dashboard/support/payments/"+p["id"].(string), link)

	detail := b.do("GET", link, nil, nil)
	var transfers []string
	detail.doc.Find(`[data-testid="transfer"] [data-testid="status"]`).Each(func(_ int, sel *goquery.Selection) {
		transfers = append(transfers, sel.AttrOr("data-status", ""))
	})
	require.ElementsMatch(t, []string{"amount_mismatch", "paid"}, transfers, "confirmed in any order")
	require.Zero(t, detail.doc.Find(`[data-testid="refund-payment"]`).Length(), "support only reads")
	require.Equal(t, http.StatusForbidden, b.do("GET", "/dashboard/balance", nil, nil).status)
}

// A live payment's page shows each step its money took at the PSP, and the
// Balance page each payout's.
func TestDashboardShowsPSPSteps(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{}))
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	p := s.CreateLivePayment(map[string]any{"amount_cents": 8_000})
	id := p["id"].(string)
	s.PSP.Pay(p["correlation_id"].(string))
	s.WaitForPayment(s.LiveKey, id, "paid", 10*time.Second)

	b := newBrowser(t, s)
	b.login("owner@example.com", "correct-horse-battery")
	enrollTOTP(t, s, b) // live money moves for people with a second factor
	token := b.csrf("/dashboard/payments")
	require.Equal(t, http.StatusSeeOther, b.do("POST", "/dashboard/mode", url.Values{"_csrf": {token}, "mode": {"live"}}, nil).status)
	r := b.confirm("/dashboard/payments/"+id+"/refund", url.Values{"_csrf": {b.csrf("/dashboard/payments/" + id)}, "amount": {"80,00"}}, nil)
	require.Equal(t, http.StatusSeeOther, r.status)
	w := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/withdrawals", Key: s.LiveKey, Body: map[string]any{"amount_cents": 1, "pix_key": "ana@example.com"}})
	require.Equal(t, http.StatusConflict, w.Status, "the refund took the whole balance: %s", w.Body)

	steps := func(path string) map[string]string {
		got := map[string]string{}
		b.do("GET", path, nil, nil).doc.Find(`[data-testid="psp-step"]`).Each(func(_ int, sel *goquery.Selection) {
			got[sel.AttrOr("data-kind", "")] = sel.AttrOr("data-status", "")
		})
		return got
	}
	require.Eventually(t, func() bool {
		return steps("/dashboard/payments/" + id)["devolucao.create"] == "succeeded"
	}, 10*time.Second, 50*time.Millisecond)
	got := steps("/dashboard/payments/" + id)
	require.Equal(t, "succeeded", got["cob.create"], "%v", got)
	require.Equal(t, "succeeded", got["pix.confirm"], "%v", got)
	require.Contains(t, b.do("GET", "/dashboard/payments/"+id, nil, nil).doc.Find(`[data-testid="psp-steps"]`).Text(), "PUT /cob/{txid}")
	require.Eventually(t, func() bool {
		detail := b.do("GET", "/dashboard/payments/"+id, nil, nil)
		return detail.doc.Find(`[data-testid="refund"] [data-testid="status"]`).AttrOr("data-status", "") == "succeeded"
	}, 10*time.Second, 50*time.Millisecond, "the refund ends succeeded when the PSP's devolução does")

	// A payout's steps on the Balance page.
	p2 := s.CreateLivePayment(map[string]any{"amount_cents": 5_000})
	s.PSP.Pay(p2["correlation_id"].(string))
	s.WaitForPayment(s.LiveKey, p2["id"].(string), "paid", 10*time.Second)
	w = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/withdrawals", Key: s.LiveKey, Body: map[string]any{"amount_cents": 1_000, "pix_key": "ana@example.com"}})
	require.Equal(t, http.StatusCreated, w.Status, "%s", w.Body)
	require.Eventually(t, func() bool { return steps("/dashboard/balance")["payout.create"] == "succeeded" }, 10*time.Second, 50*time.Millisecond)
}

// A confirmed money-moving form does its work once: the same confirmation
// posted again, twenty times at once and then once more, makes one refund
// (and one withdrawal) and shows the first result; the token does not
// confirm another amount.
func TestConfirmedMoneyFormsRunOnce(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	id := payTest(t, s, 100_000)
	b := newBrowser(t, s)
	require.Equal(t, http.StatusSeeOther, b.login("owner@example.com", "correct-horse-battery").status)
	token := b.csrf("/dashboard/payments/" + id)

	count := func(table string) int {
		n, err := s.DB.NewSelect().TableExpr(table).Where("account_id = ?", s.Account.ID).Count(t.Context())
		require.NoError(t, err)
		return int(n)
	}
	for _, c := range []struct {
		path, table, notice string
		form                url.Values
	}{
		{"/dashboard/payments/" + id + "/refund", "refunds", "Devolução de R$ 10,00 concluída.", url.Values{"_csrf": {token}, "amount": {"10,00"}}},
		{"/dashboard/balance/withdrawals", "withdrawals", "Saque de R$ 20,00 para ana@example.com criado",
			url.Values{"_csrf": {token}, "amount": {"20,00"}, "pix_key": {"ana@example.com"}}},
	} {
		ask := b.do("POST", c.path, c.form, nil)
		require.Equal(t, http.StatusOK, ask.status)
		form := confirmForm(t, ask)
		statuses := make(chan int, 20)
		var wg sync.WaitGroup
		for range 20 {
			wg.Go(func() { statuses <- b.do("POST", c.path, form, nil).status })
		}
		wg.Wait()
		close(statuses)
		for status := range statuses {
			require.Equal(t, http.StatusSeeOther, status)
		}
		require.Equal(t, 1, count(c.table), "%s: twenty posts of one confirmation", c.path)

		again := b.do("POST", c.path, form, nil)
		require.Equal(t, http.StatusSeeOther, again.status)
		shown := b.do("GET", again.header.Get("Location"), nil, nil)
		require.Contains(t, shown.doc.Find(`[data-testid="notice"]`).Text(), c.notice, "the first result, shown again")
		require.Equal(t, 1, count(c.table))

		form.Set("amount", "30,00") // the same token for another amount
		other := b.do("POST", c.path, form, nil)
		require.Equal(t, http.StatusSeeOther, other.status)
		require.Equal(t, 1, count(c.table), "a token confirms one form only")
		require.Equal(t, "Esta confirmação já foi usada para outra ação. Comece de novo.",
			b.do("GET", other.header.Get("Location"), nil, nil).doc.Find(`[data-testid="notice"]`).Text())
	}
}

// A refund that cannot be made is refused on the form, in words, before
// any confirmation is asked for (more than the payment, more than is left).
func TestImpossibleRefundIsRefusedBeforeConfirmation(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	id := payTest(t, s, 246_912)
	b := newBrowser(t, s)
	require.Equal(t, http.StatusSeeOther, b.login("owner@example.com", "correct-horse-battery").status)
	token := b.csrf("/dashboard/payments/" + id)
	for _, amount := range []string{"99.999.999,00", "2.469,13"} {
		r := b.do("POST", "/dashboard/payments/"+id+"/refund", url.Values{"_csrf": {token}, "amount": {amount}}, nil)
		require.Equal(t, http.StatusSeeOther, r.status, "%s: no confirmation page", amount)
		page := b.do("GET", r.header.Get("Location"), nil, nil)
		require.Equal(t, "O valor é maior do que o que resta a devolver deste pagamento.", page.doc.Find(`[data-testid="notice"]`).Text(), amount)
	}
	ask := b.do("POST", "/dashboard/payments/"+id+"/refund", url.Values{"_csrf": {token}, "amount": {"2.469,12"}}, nil)
	require.Equal(t, http.StatusOK, ask.status, "the whole amount is asked about")
	require.Equal(t, 1, ask.doc.Find(`[data-testid="confirmation"]`).Length())
	n, err := s.DB.NewSelect().Table("refunds").Where("account_id = ?", s.Account.ID).Count(t.Context())
	require.NoError(t, err)
	require.Zero(t, n, "asking wrote nothing")
}

// A live payment's link opens it whatever mode the session shows: the mode
// follows the payment, with a notice; a payment in neither mode is not found.
func TestPaymentLinkFollowsThePaymentsMode(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	now := s.Store.Now()
	live := &store.Payment{ID: ids.NewPayment(now), AccountID: s.Account.ID, Livemode: true, Status: store.StatusPending,
		AmountCents: 4_200, Currency: "BRL", PaymentMethod: "pix", CorrelationID: pix.NewTxID(), FeeCents: 42,
		BRCode: "x", QRCodeURL: "http://x/qr.png", CheckoutURL: "http://x/pay", CreatedAt: now, UpdatedAt: now, ExpiresAt: now.Add(time.Hour)}
	require.NoError(t, s.Store.CreatePayment(t.Context(), live))
	b := newBrowser(t, s)
	require.Equal(t, http.StatusSeeOther, b.login("owner@example.com", "correct-horse-battery").status)
	path := "/dashboard/payments/" + live.ID.String()

	r := b.do("GET", path, nil, nil)
	require.Equal(t, http.StatusSeeOther, r.status, "a session in test mode")
	require.Equal(t, path, r.header.Get("Location"))
	p := b.do("GET", path, nil, nil)
	require.Equal(t, http.StatusOK, p.status)
	require.Equal(t, "Este pagamento é do modo real: o painel passou para o modo real.", p.doc.Find(`[data-testid="notice"]`).Text())
	require.Equal(t, "Modo real", p.doc.Find(`[data-testid="mode"]`).First().Text())
	require.Contains(t, p.doc.Find("h1").Text(), "42,00")

	other := b.do("GET", "/dashboard/payments/"+ids.NewPayment(now).String(), nil, nil)
	require.Equal(t, http.StatusNotFound, other.status)
}

// A live charge made while the PSP is down says it is still being
// registered, offers no payment link yet, and its page says in words what
// the PSP's trouble is, the PSP's own text behind a details toggle.
func TestLiveChargeDuringAPSPOutageSaysSoInWords(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{ChargeWait: 300 * time.Millisecond}))
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	s.PSP.SetFaults(sandboxtest.Faults{ErrorRate: 1})
	b := newBrowser(t, s)
	b.login("owner@example.com", "correct-horse-battery")
	enrollTOTP(t, s, b) // live money moves for people with a second factor
	token := b.csrf("/dashboard/payments")
	require.Equal(t, http.StatusSeeOther, b.do("POST", "/dashboard/mode", url.Values{"_csrf": {token}, "mode": {"live"}}, nil).status)
	r := b.do("POST", "/dashboard/payments", url.Values{"_csrf": {b.csrf("/dashboard/payments/new")}, "amount": {"25,00"}}, nil)
	require.Equal(t, http.StatusSeeOther, r.status, "%s", r.body)
	page := b.do("GET", r.header.Get("Location"), nil, nil)
	require.Contains(t, page.doc.Find(`[data-testid="notice"]`).Text(), "O PSP ainda está registrando-a")
	require.Zero(t, page.doc.Find(`[data-testid="checkout-link"]`).Length(), "no link to a charge nobody can pay yet")
	require.Equal(t, 1, page.doc.Find(`[data-testid="payment-preparing"]`).Length())
	require.Eventually(t, func() bool {
		step := b.do("GET", r.header.Get("Location"), nil, nil).doc.Find(`[data-testid="psp-step"][data-kind="cob.create"] [data-testid="psp-trouble"]`)
		return strings.Contains(step.Text(), "O PSP está fora do ar no momento. Nova tentativa automática.") &&
			strings.Contains(step.Find(`details [data-testid="psp-raw-error"]`).Text(), ": 503 Serviço Indisponível")
	}, 10*time.Second, 100*time.Millisecond)
}

// A Pix that paid nothing (the wrong amount) goes back to its payer when the
// merchant asks: confirmed with the amount in words, returned in full by a
// devolução at the PSP, the balance untouched, who asked recorded, and
// support sees where the return stands.
func TestMerchantReturnsAPixThatPaidNothing(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{}))
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	_, err := s.Store.CreateUser(context.Background(), "help@example.com", "correct-horse-battery", store.RoleSupport, "")
	require.NoError(t, err)
	p := s.CreateLivePayment(map[string]any{"amount_cents": 4_000})
	id := p["id"].(string)
	sent := s.PSP.Transfer(p["correlation_id"].(string), "39.99")
	require.Eventually(t, func() bool {
		n, err := s.Store.PixNotification(context.Background(), sent.EndToEndID)
		return err == nil && n.Outcome == store.PixAmountMismatch
	}, 10*time.Second, 20*time.Millisecond)
	balance := func() any {
		return s.Do(webtest.Request{Method: "GET", Path: "/api/v1/balance", Key: s.LiveKey}).JSON(t)["available"]
	}
	before := balance()

	b := newBrowser(t, s)
	b.login("owner@example.com", "correct-horse-battery")
	enrollTOTP(t, s, b) // live money moves for people with a second factor
	token := b.csrf("/dashboard/payments")
	require.Equal(t, http.StatusSeeOther, b.do("POST", "/dashboard/mode", url.Values{"_csrf": {token}, "mode": {"live"}}, nil).status)
	page := b.do("GET", "/dashboard/payments/"+id, nil, nil)
	require.Equal(t, 1, page.doc.Find(`[data-testid="transfer"] [data-testid="return-transfer"]`).Length())
	path := "/dashboard/payments/" + id + "/transfers/" + sent.EndToEndID + "/return"
	ask := b.do("POST", path, url.Values{"_csrf": {b.csrf("/dashboard/payments/" + id)}}, nil)
	require.Equal(t, http.StatusOK, ask.status, "%s", ask.body)
	require.Contains(t, ask.doc.Find(`[data-testid="confirm-summary"]`).Text(), "trinta e nove reais e noventa e nove centavos")
	r := b.do("POST", path, confirmForm(t, ask), nil)
	require.Equal(t, http.StatusSeeOther, r.status, "%s", r.body)
	page = b.do("GET", "/dashboard/payments/"+id, nil, nil)
	require.Equal(t, "Devolução de R$ 39,99 solicitada: o PSP está devolvendo ao pagador.", page.doc.Find(`[data-testid="notice"]`).Text())
	require.Zero(t, page.doc.Find(`[data-testid="return-transfer"]`).Length(), "asked once")

	require.Eventually(t, func() bool {
		ret := b.do("GET", "/dashboard/payments/"+id, nil, nil).doc.Find(`[data-testid="transfer-return"]`)
		return ret.AttrOr("data-status", "") == "returned" && strings.Contains(ret.Text(), "Devolvido ao pagador")
	}, 15*time.Second, 100*time.Millisecond)
	n, err := s.Store.PixNotification(context.Background(), sent.EndToEndID)
	require.NoError(t, err)
	d, err := s.PSP.Client.GetDevolucao(context.Background(), sent.EndToEndID, *n.ReturnID)
	require.NoError(t, err)
	require.Equal(t, "39.99", d.Valor, "the whole transfer, at the PSP")
	require.Equal(t, before, balance(), "it never reached the balance, and its return does not touch it")
	require.Equal(t, "pending", s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + id, Key: s.LiveKey}).JSON(t)["status"])

	user, err := s.Store.UserByEmail(context.Background(), "owner@example.com")
	require.NoError(t, err)
	trail, err := storetest.AuditTrail(context.Background(), s.DB, s.Account.ID, sent.EndToEndID)
	require.NoError(t, err)
	require.Equal(t, []storetest.AuditEntry{
		{Livemode: true, Action: "transfer.return_requested", ObjectID: sent.EndToEndID, Actor: store.ActorUser(user.ID).ID},
		{Livemode: true, Action: "transfer.returned", ObjectID: sent.EndToEndID, Actor: "psp"},
	}, trail, "the merchant asked; the PSP's worker recorded the end")

	help := newBrowser(t, s)
	help.login("help@example.com", "correct-horse-battery")
	problems := help.do("GET", "/dashboard/support", nil, nil)
	require.Equal(t, "returned", problems.doc.Find(`[data-outcome="amount_mismatch"] [data-testid="problem-return"]`).AttrOr("data-status", ""))
}
