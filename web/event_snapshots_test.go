package web_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"mime/multipart"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"

	"payments/dispatcher/maintenance"
	"payments/store"
	"payments/web/webtest"
)

// Every event's object is the object the API returns at that moment: each
// event type is caused through the API, and its data.object, as GET
// /api/v1/events/{id} serves it, equals a GET of its object right after.
// (The live subscription's, announced once the PSP has it, is compared in
// dispatcher/pspcalls.)
func TestEveryEventCarriesWhatTheAPIAnswers(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := noonInBrasilia("2026-03-02")()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	setDay := func(date string) { mu.Lock(); defer mu.Unlock(); now = noonInBrasilia(date)() }
	s := webtest.New(t, webtest.WithClock(clock))
	// Every delivery, in each version, is checked against the schema GET
	// /api/v1/event_types serves for its type.
	receivers := map[string]*webtest.Receiver{}
	for _, version := range store.APIVersions {
		receivers[version] = webtest.NewReceiver(t, nil)
		s.CreateWebhook(receivers[version].URL, map[string]any{"events": store.EventTypes, "api_version": version})
	}
	api := func(method, path string, body any, want int) map[string]any {
		t.Helper()
		r := s.Do(webtest.Request{Method: method, Path: path, Key: s.TestKey, Body: body})
		require.Equal(t, want, r.Status, "%s %s: %s", method, path, r.Body)
		return r.JSON(t)
	}
	seen := map[string]bool{}
	// same compares the newest event of type typ about the object at path
	// with a GET of it.
	same := func(typ, path string) {
		t.Helper()
		got := api("GET", path, nil, http.StatusOK)
		require.Equal(t, got, s.EventObject(s.TestKey, got["id"].(string), typ), "%s is what GET %s answers", typ, path)
		seen[typ] = true
	}

	// Payments: created, paid, refunded, expired, canceled.
	p := s.CreatePayment(map[string]any{"amount_cents": 10_000, "description": "Pedido 1", "metadata": map[string]any{"canal": "loja"}})
	payment := "/api/v1/payments/" + p["id"].(string)
	same(store.EventPaymentCreated, payment)
	api("POST", "/api/v1/test_helpers/payments/"+p["id"].(string)+"/pay", nil, http.StatusOK)
	same(store.EventPaymentPaid, payment)
	re := api("POST", "/api/v1/refunds", map[string]any{"payment": p["id"], "amount_cents": 2_500}, http.StatusCreated)
	api("POST", "/api/v1/test_helpers/refunds/"+re["id"].(string)+"/succeed", nil, http.StatusOK)
	same(store.EventRefundSucceeded, "/api/v1/refunds/"+re["id"].(string))
	re = api("POST", "/api/v1/refunds", map[string]any{"payment": p["id"], "amount_cents": 1_000}, http.StatusCreated)
	api("POST", "/api/v1/test_helpers/refunds/"+re["id"].(string)+"/fail", map[string]any{"failure_reason": "Conta encerrada"}, http.StatusOK)
	same(store.EventRefundFailed, "/api/v1/refunds/"+re["id"].(string))
	re = api("POST", "/api/v1/refunds", map[string]any{"payment": p["id"]}, http.StatusCreated) // what is left
	api("POST", "/api/v1/test_helpers/refunds/"+re["id"].(string)+"/succeed", nil, http.StatusOK)
	same(store.EventPaymentRefunded, payment)

	expired := s.CreatePayment(map[string]any{"amount_cents": 500})["id"].(string)
	api("POST", "/api/v1/test_helpers/payments/"+expired+"/expire", nil, http.StatusOK)
	same(store.EventPaymentExpired, "/api/v1/payments/"+expired)
	canceled := s.CreatePayment(map[string]any{"amount_cents": 600})["id"].(string)
	api("DELETE", "/api/v1/payments/"+canceled, nil, http.StatusOK)
	same(store.EventPaymentCanceled, "/api/v1/payments/"+canceled)

	// Disputes: opened, updated (defended), won; another lost.
	disputed := s.Fund(s.TestKey, 5_000)
	dsp := api("POST", "/api/v1/test_helpers/payments/"+disputed+"/dispute", map[string]any{"amount_cents": 2_000}, http.StatusCreated)
	dispute := "/api/v1/disputes/" + dsp["id"].(string)
	same(store.EventDisputeOpened, dispute)
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	_ = mw.WriteField("text", "O pagador autorizou a compra.")
	_ = mw.Close()
	r := s.Do(webtest.Request{Method: "POST", Path: dispute + "/defense", Key: s.TestKey, Body: form.Bytes(),
		Headers: map[string]string{"Content-Type": mw.FormDataContentType()}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	same(store.EventDisputeUpdated, dispute)
	api("POST", "/api/v1/test_helpers/disputes/"+dsp["id"].(string)+"/win", nil, http.StatusOK)
	same(store.EventDisputeWon, dispute)
	dsp = api("POST", "/api/v1/test_helpers/payments/"+disputed+"/dispute", map[string]any{"amount_cents": 1_000}, http.StatusCreated)
	api("POST", "/api/v1/test_helpers/disputes/"+dsp["id"].(string)+"/lose", nil, http.StatusOK)
	same(store.EventDisputeLost, "/api/v1/disputes/"+dsp["id"].(string))

	// Withdrawals: completed, contested and returned or refused; failed.
	s.Fund(s.TestKey, 50_000)
	withdraw := func() string {
		return api("POST", "/api/v1/withdrawals", map[string]any{"amount_cents": 3_000, "pix_key": "ana@example.com"}, http.StatusCreated)["id"].(string)
	}
	wd := withdraw()
	api("POST", "/api/v1/test_helpers/withdrawals/"+wd+"/complete", nil, http.StatusOK)
	same(store.EventWithdrawalCompleted, "/api/v1/withdrawals/"+wd)
	api("POST", "/api/v1/withdrawals/"+wd+"/contest", map[string]any{"reason": "fraud", "description": "Golpe por telefone."}, http.StatusOK)
	same(store.EventWithdrawalContested, "/api/v1/withdrawals/"+wd)
	api("POST", "/api/v1/test_helpers/withdrawals/"+wd+"/contest_result", map[string]any{"amount_returned_cents": 1_000}, http.StatusOK)
	same(store.EventWithdrawalContestReturned, "/api/v1/withdrawals/"+wd)
	wd = withdraw()
	api("POST", "/api/v1/test_helpers/withdrawals/"+wd+"/complete", nil, http.StatusOK)
	api("POST", "/api/v1/withdrawals/"+wd+"/contest", map[string]any{"reason": "coercion", "description": "Coagido."}, http.StatusOK)
	api("POST", "/api/v1/test_helpers/withdrawals/"+wd+"/contest_result", map[string]any{"amount_returned_cents": 0}, http.StatusOK)
	same(store.EventWithdrawalContestRefused, "/api/v1/withdrawals/"+wd)
	wd = withdraw()
	api("POST", "/api/v1/test_helpers/withdrawals/"+wd+"/fail", map[string]any{"failure_reason": "Chave não encontrada"}, http.StatusOK)
	same(store.EventWithdrawalFailed, "/api/v1/withdrawals/"+wd)

	// Subscriptions: created, activated, their cycles retried and failed,
	// rejected, canceled, expired.
	subscribe := func(extra map[string]any) string {
		body := map[string]any{"payer": map[string]any{"name": "Ana Lima", "document": "52998224725"}, "contract": "PLANO-1",
			"interval": "monthly", "start_date": "2026-03-07", "amount_cents": 4_990, "journey": "authorization_only",
			"retry_policy": "three_in_seven_days"}
		for k, v := range extra {
			body[k] = v
		}
		return api("POST", "/api/v1/subscriptions", body, http.StatusCreated)["id"].(string)
	}
	sub := subscribe(nil)
	subscription := "/api/v1/subscriptions/" + sub
	same(store.EventSubscriptionCreated, subscription)
	api("POST", "/api/v1/test_helpers/subscriptions/"+sub+"/authorize", nil, http.StatusOK)
	same(store.EventSubscriptionActivated, subscription)
	cycle := api("POST", "/api/v1/subscriptions/"+sub+"/cycles", nil, http.StatusCreated)["id"].(string)
	same(store.EventPaymentCreated, "/api/v1/payments/"+cycle)
	api("POST", "/api/v1/test_helpers/subscriptions/"+sub+"/run_cycle", map[string]any{"outcome": "insufficient_balance"}, http.StatusOK)
	same(store.EventPaymentRetryScheduled, "/api/v1/payments/"+cycle)
	for range 3 {
		api("POST", "/api/v1/test_helpers/subscriptions/"+sub+"/run_cycle", map[string]any{"outcome": "insufficient_balance"}, http.StatusOK)
	}
	same(store.EventPaymentFailed, "/api/v1/payments/"+cycle)
	api("POST", "/api/v1/subscriptions/"+sub+"/cancel", nil, http.StatusOK)
	same(store.EventSubscriptionCanceled, subscription)

	rejected := subscribe(nil)
	api("POST", "/api/v1/test_helpers/subscriptions/"+rejected+"/reject", nil, http.StatusOK)
	same(store.EventSubscriptionRejected, "/api/v1/subscriptions/"+rejected)

	ending := subscribe(map[string]any{"end_date": "2026-03-20"})
	api("POST", "/api/v1/test_helpers/subscriptions/"+ending+"/authorize", nil, http.StatusOK)
	require.Equal(t, 1, maintenance.MakeDueCycles(t.Context(), s.Store, discardLogger()), "cycle 1, due 2026-03-07")
	api("POST", "/api/v1/test_helpers/subscriptions/"+ending+"/run_cycle", nil, http.StatusOK)
	setDay("2026-03-30")
	require.Equal(t, 1, maintenance.MakeDueCycles(t.Context(), s.Store, discardLogger()), "cycle 2 is past the end date")
	same(store.EventSubscriptionExpired, "/api/v1/subscriptions/"+ending)

	// Reports: ready; and failed, as the builder records a failure.
	report := api("POST", "/api/v1/reports", map[string]any{"type": "payments", "format": "csv", "from": "2026-03-01", "to": "2026-03-02"},
		http.StatusCreated)["id"].(string)
	for {
		built, err := s.Reports.BuildNext(t.Context())
		require.NoError(t, err)
		if !built {
			break
		}
	}
	same(store.EventReportReady, "/api/v1/reports/"+report)
	report = api("POST", "/api/v1/reports", map[string]any{"type": "payments", "format": "csv", "from": "2026-03-01", "to": "2026-03-02"},
		http.StatusCreated)["id"].(string)
	_, err := s.Store.FailReport(t.Context(), report, "O arquivo não pôde ser gerado.")
	require.NoError(t, err)
	same(store.EventReportFailed, "/api/v1/reports/"+report)

	for _, typ := range store.EventTypes {
		require.True(t, seen[typ], "%s compared", typ)
	}

	catalog := api("GET", "/api/v1/event_types", nil, http.StatusOK)["data"].([]any)
	require.Len(t, catalog, len(store.EventTypes))
	compiler := jsonschema.NewCompiler()
	validators := map[string]*jsonschema.Schema{}
	for _, item := range catalog {
		e := item.(map[string]any)
		for version, schema := range e["schemas"].(map[string]any) {
			name := e["type"].(string) + "." + version + ".json"
			raw, err := json.Marshal(schema)
			require.NoError(t, err)
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
			require.NoError(t, err)
			require.NoError(t, compiler.AddResource(name, doc))
			sch, err := compiler.Compile(name)
			require.NoError(t, err, name)
			validators[e["type"].(string)+" "+version] = sch
		}
	}
	var events int
	require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM events WHERE account_id = ? AND NOT sample", s.Account.ID).Scan(t.Context(), &events))
	for s.Dispatcher.RunOnce(t.Context(), 100) > 0 {
	}
	checked := map[string]bool{}
	for version, recv := range receivers {
		for _, got := range recv.WaitFor(events, 20*time.Second) {
			body, err := jsonschema.UnmarshalJSON(bytes.NewReader(got.Body))
			require.NoError(t, err)
			typ := got.Header.Get("X-Service-Event")
			v, ok := validators[typ+" "+version]
			require.True(t, ok, "a schema for %s %s", typ, version)
			require.NoError(t, v.Validate(body), "a %s delivery (%s) valid against its schema: %s", typ, version, got.Body)
			checked[typ+" "+version] = true
		}
	}
	require.Len(t, checked, 2*len(store.EventTypes), "every type, in both versions")
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
