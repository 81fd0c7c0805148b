package pspcalls_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/pix"
	"payments/pix/apipix"
	"payments/pix/apipix/sandboxtest"
	"payments/store"
	"payments/web/webtest"
)

// liveWebhook registers a live webhook for events and returns its receiver.
func liveWebhook(t *testing.T, s *webtest.Server, events ...string) *webtest.Receiver {
	t.Helper()
	recv := webtest.NewReceiver(t, nil)
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks", Key: s.LiveKey,
		Body: map[string]any{"url": recv.URL, "events": events}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	return recv
}

// eventTypes are the types of the deliveries a receiver got.
func eventTypes(t *testing.T, got []webtest.Received) []string {
	t.Helper()
	var types []string
	for _, g := range got {
		var e struct{ Type string }
		require.NoError(t, json.Unmarshal(g.Body, &e))
		types = append(types, e.Type)
	}
	return types
}

func liveScope(s *webtest.Server) store.Scope {
	return store.Scope{AccountID: s.Account.ID, Livemode: true}
}

func TestLiveChargeRegisteredPaidConfirmedAndNotified(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{MTLS: true}), webtest.WithRunningDispatcher())
	recv := liveWebhook(t, s, "payment.created", "payment.paid")

	p := s.CreateLivePayment(map[string]any{"amount_cents": 12_345, "description": "Pedido 42", "expires_in": 600,
		"customer": map[string]any{"name": "Maria Souza", "email": "maria@example.com", "document": "529.982.247-25"}})
	require.Equal(t, true, p["livemode"])
	require.Equal(t, "pending", p["status"])
	code := p["pix"].(map[string]any)["br_code"].(string)
	d, err := pix.Decode(code)
	require.NoError(t, err, "the PSP's BR Code, CRC valid")
	require.Equal(t, "12", d.Fields["01"], "a dynamic code: used once")
	location := d.MerchantAccount["25"]
	require.True(t, strings.HasPrefix(location, strings.TrimPrefix(s.PSP.API, "https://")+"/qr/v2/"), "the PSP's location: %s", location)
	require.Equal(t, "***", d.AdditionalData["05"], "a dynamic code's txid is at the location")

	st := s.PSP.State()
	require.Equal(t, "ATIVA", st.Cobs[p["correlation_id"].(string)], "PUT /cob/{txid} with the payment's correlation_id")
	require.Zero(t, st.Counts["nonconforming"], "every request conformed to API Pix 2.9.0: %s", s.PSP.Logs())
	cob, err := s.PSP.Client.GetCob(t.Context(), p["correlation_id"].(string))
	require.NoError(t, err)
	require.Equal(t, "123.45", cob.Valor.Original)
	require.Equal(t, sandboxtest.Chave, cob.Chave)
	require.Equal(t, &apipix.Devedor{CPF: "52998224725", Nome: "Maria Souza"}, cob.Devedor, "devedor from the customer")
	require.Equal(t, "Loja Teste: Pedido 42", cob.SolicitacaoPagador, "solicitacaoPagador: the merchant, then the description")
	require.InDelta(t, 600, cob.Calendario.Expiracao, 2, "expiracao from expires_in")
	// The PSP's code names the platform, whose key it is; the payer's code
	// names the merchant, and the checkout says whose name the bank shows.
	require.Equal(t, "Pagamentos", mustDecode(t, cob.PixCopiaECola).Fields["59"])
	require.Equal(t, "Loja Teste", d.Fields["59"], "the merchant's name in the payer's code")
	renamed, err := pix.WithMerchantName(cob.PixCopiaECola, "Loja Teste")
	require.NoError(t, err)
	require.Equal(t, renamed, code, "the PSP's code, but for the name")
	require.Contains(t, pageText(t, s, "/pay/"+p["id"].(string)),
		`data-testid="payer-via">via Pagamentos: é o nome que o seu banco mostra como recebedor<`)

	paid := s.PSP.PayCode(code)
	require.Equal(t, "123.45", paid.Valor)
	got := s.WaitForPayment(s.LiveKey, p["id"].(string), "paid", 10*time.Second)
	require.NotNil(t, got["paid_at"])
	require.Contains(t, pageText(t, s, "/pay/"+p["id"].(string)+"/receipt"), `data-testid="receipt-via">Pagamentos<`,
		"the receipt says whom the bank named")
	require.Equal(t, []string{"payment.created", "payment.paid"}, eventTypes(t, recv.WaitFor(2, 10*time.Second)))
	require.Equal(t, "CONCLUIDA", s.PSP.State().Cobs[p["correlation_id"].(string)])

	bal := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/balance", Key: s.LiveKey}).JSON(t)
	require.Equal(t, 12_345-got["fee_cents"].(float64), bal["available_cents"], "the amount less the fee")
	s.LedgerMatchesBalance(liveScope(s))
	require.Zero(t, s.PSP.State().Counts["nonconforming"])
}

func TestLiveCreateWhilePSPIsDownIsRetriedWithTheSameKey(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{ChargeWait: 300 * time.Millisecond}))
	s.PSP.SetFaults(sandboxtest.Faults{ErrorRate: 1})
	body := map[string]any{"amount_cents": 5_000}
	create := func(key string) *webtest.Response {
		return s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: s.LiveKey, Body: body,
			Headers: map[string]string{"Idempotency-Key": key}})
	}
	r := create("order-1")
	require.Equal(t, http.StatusServiceUnavailable, r.Status, "%s", r.Body)
	require.Equal(t, "psp_unavailable", r.ErrorCode(t))
	require.Equal(t, "2", r.Header.Get("Retry-After"))

	// The payment exists and is not payable: no BR Code, no QR, the
	// checkout page says it is being prepared.
	list := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments", Key: s.LiveKey}).JSON(t)["data"].([]any)
	require.Len(t, list, 1)
	pending := list[0].(map[string]any)
	id := pending["id"].(string)
	require.Contains(t, r.JSON(t)["error"].(map[string]any)["message"], id)
	require.Nil(t, pending["pix"].(map[string]any)["br_code"])
	require.Nil(t, pending["pix"].(map[string]any)["qr_code_url"])
	require.Equal(t, http.StatusNotFound, s.DoRaw(webtest.Request{Method: "GET", Path: "/pay/" + id + "/qr.png"}).Status)
	page := s.DoRaw(webtest.Request{Method: "GET", Path: "/pay/" + id})
	require.Equal(t, http.StatusOK, page.Status)
	require.Contains(t, string(page.Body), "Preparando a cobrança")
	require.NotContains(t, string(page.Body), "000201", "no BR Code on the page")

	r = create("order-1")
	require.Equal(t, http.StatusServiceUnavailable, r.Status, "still down")
	require.Equal(t, http.StatusUnprocessableEntity, s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: s.LiveKey,
		Body: map[string]any{"amount_cents": 5_001}, Headers: map[string]string{"Idempotency-Key": "order-1"}}).Status,
		"the same key with another body")

	s.PSP.SetFaults(sandboxtest.Faults{})
	eventually(t, 15*time.Second, func() bool {
		r = create("order-1")
		return r.Status == http.StatusCreated
	}, func() string { return string(r.Body) + "\n" + dumpCalls(t, s) })
	done := r.JSON(t)
	require.Equal(t, id, done["id"], "the retry completes the same payment")
	_, err := pix.Decode(done["pix"].(map[string]any)["br_code"].(string))
	require.NoError(t, err)
	replay := create("order-1")
	require.Equal(t, http.StatusCreated, replay.Status)
	require.Equal(t, "true", replay.Header.Get("Idempotent-Replayed"))
	require.Len(t, s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments", Key: s.LiveKey}).JSON(t)["data"], 1, "one payment, one charge")
	require.Len(t, s.PSP.State().Cobs, 1)
}

func TestLiveModeOffRefusesLiveMoney(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	for _, req := range []webtest.Request{
		{Method: "POST", Path: "/api/v1/payments", Body: map[string]any{"amount_cents": 100}},
		{Method: "POST", Path: "/api/v1/refunds", Body: map[string]any{"payment": "4a4b3a34-6a6c-7c43-9b0a-6a1e1a1e1a1e"}},
		{Method: "POST", Path: "/api/v1/withdrawals", Body: map[string]any{"amount_cents": 100, "pix_key": "52998224725"}},
	} {
		req.Key = s.LiveKey
		r := s.Do(req)
		require.Equal(t, http.StatusForbidden, r.Status, "%s %s", req.Path, r.Body)
		require.Equal(t, "live_mode_disabled", r.ErrorCode(t))
	}
	var n int
	require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM payments").Scan(t.Context(), &n))
	require.Zero(t, n)
}

// dumpCalls renders the PSP calls, for failure messages.
func dumpCalls(t *testing.T, s *webtest.Server) string {
	var rows []map[string]any
	require.NoError(t, s.DB.NewRaw("SELECT kind, object_id, status, attempts, next_attempt_at, last_error, left(response::text, 700) AS response, created_at, updated_at FROM psp_calls ORDER BY created_at").Scan(context.WithoutCancel(t.Context()), &rows))
	b, _ := json.MarshalIndent(rows, "", "  ")
	return string(b)
}

// eventually polls cond until it holds or within passes, and then fails
// with what describe says (called at the end, when it tells the most).
func eventually(t *testing.T, within time.Duration, cond func() bool, describe func() string) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition never satisfied: %s", describe())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestCanceledLiveChargeIsRemovedAtThePSP(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{}))
	p := s.CreateLivePayment(map[string]any{"amount_cents": 990})
	txid := p["correlation_id"].(string)
	r := s.Do(webtest.Request{Method: "DELETE", Path: "/api/v1/payments/" + p["id"].(string), Key: s.LiveKey})
	require.Equal(t, http.StatusOK, r.Status)
	require.Equal(t, "canceled", r.JSON(t)["status"])
	eventually(t, 10*time.Second, func() bool { return s.PSP.State().Cobs[txid] == "REMOVIDA_PELO_USUARIO_RECEBEDOR" },
		func() string { return dumpCalls(t, s) })
	// The payer's bank can no longer pay it.
	res, err := http.Post(s.PSP.Payer+"/sandbox/pay", "application/json", strings.NewReader(`{"txid":"`+txid+`"}`))
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	require.Zero(t, s.PSP.State().Counts["nonconforming"])
}

// When a live payment was paid is the PSP's time of settlement (the Pix's
// horario), whatever the service's clock says: the API's paid_at, the
// dashboard's "Pago em", the checkout's and the receipt's (issue 52).
func TestAPaymentWasPaidWhenThePixSettled(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{}), webtest.WithRunningDispatcher())
	later := time.Now().In(brasilia).AddDate(0, 0, 13)
	s.PSP.SetDate(later.Format(time.DateOnly)) // the sandbox's noon, 13 days on
	p := s.CreateLivePayment(map[string]any{"amount_cents": 1_500})
	pix := s.PSP.Pay(p["correlation_id"].(string))
	paid := s.WaitForPayment(s.LiveKey, p["id"].(string), "paid", 10*time.Second)
	settled, err := time.Parse(time.RFC3339, pix.Horario)
	require.NoError(t, err)
	at, err := time.Parse(time.RFC3339, paid["paid_at"].(string))
	require.NoError(t, err)
	require.WithinDuration(t, settled, at, time.Millisecond, "paid_at is the Pix's horario")
	require.Equal(t, later.Format(time.DateOnly), at.In(brasilia).Format(time.DateOnly))

	receipt := s.DoRaw(webtest.Request{Method: "GET", Path: "/pay/" + p["id"].(string) + "/receipt"})
	checkout := s.DoRaw(webtest.Request{Method: "GET", Path: "/pay/" + p["id"].(string)})
	day := at.In(brasilia).Format("02/01/2006")
	require.Contains(t, string(receipt.Body), day)
	require.Contains(t, string(checkout.Body), day)
}

// brasilia is where the pages tell times (the account's zone by default).
var brasilia = func() *time.Location {
	loc, err := time.LoadLocation("America/Sao_Paulo")
	if err != nil {
		panic(err)
	}
	return loc
}()

// mustDecode decodes a BR Code.
func mustDecode(t *testing.T, code string) pix.Decoded {
	t.Helper()
	d, err := pix.Decode(code)
	require.NoError(t, err)
	return d
}

// pageText is the HTML of a payer's page (pages are not in the OpenAPI
// document that webtest's requests are checked against).
func pageText(t *testing.T, s *webtest.Server, path string) string {
	t.Helper()
	res, err := s.Client.Get(s.URL + path)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return string(b)
}
