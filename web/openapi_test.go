package web_test

import (
	"bytes"
	"context"
	"log/slog"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/pix/calendar"
	"payments/store"
	"payments/store/storetest"
	"payments/web"
	"payments/web/webtest"
)

var paramPattern = regexp.MustCompile(`\{[^}]+\}|:[a-z_]+`)

func normalizeRoute(method, path string) string {
	return method + " " + paramPattern.ReplaceAllString(path, "{}")
}

// TestEveryRouteIsDocumented compares the mounted JSON routes with the document.
func TestEveryRouteIsDocumented(t *testing.T) {
	t.Parallel()
	st, err := store.New(storetest.DB(t), store.Options{})
	require.NoError(t, err)
	app := web.New(web.Config{}, web.Deps{Store: st, Log: slog.New(slog.DiscardHandler)})
	var mounted []string
	for _, r := range app.GetRoutes(true) {
		// The document covers the JSON surface; the dashboard's HTML routes are not API.
		jsonSurface := strings.HasPrefix(r.Path, "/api/") || strings.HasPrefix(r.Path, "/psp/") || strings.HasSuffix(r.Path, ".png") || r.Path == "/healthz" || r.Path == "/readyz"
		if r.Method == http.MethodHead || !jsonSurface {
			continue
		}
		mounted = append(mounted, normalizeRoute(r.Method, r.Path))
	}
	var documented []string
	for _, op := range webtest.DocumentedOperations() {
		method, path, _ := strings.Cut(op, " ")
		documented = append(documented, normalizeRoute(method, path))
	}
	slices.Sort(mounted)
	slices.Sort(documented)
	require.Equal(t, documented, slices.Compact(mounted))
}

// TestEveryOperationAnswersAsDocumented calls every documented operation
// with success and error cases; Do validates each response body, status and
// content type against the document.
func TestEveryOperationAnswersAsDocumented(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{}))
	covered := map[string]bool{}
	do := func(req webtest.Request, want int) *webtest.Response {
		t.Helper()
		r := s.Do(req)
		require.Equal(t, want, r.Status, "%s %s: %s", req.Method, req.Path, r.Body)
		op, ok := webtest.Operation(req.Method, req.Path)
		require.True(t, ok)
		covered[op] = true
		return r
	}
	p := do(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: s.TestKey, Body: map[string]any{
		"amount_cents": 1000, "external_id": "doc-1", "description": "d",
		"customer": map[string]any{"name": "A", "email": "a@example.com", "document": "52998224725", "phone": nil},
		"metadata": map[string]any{"k": "v"}, "expires_in": 600,
	}}, 201).JSON(t)
	id := p["id"].(string)
	do(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: s.TestKey, Body: map[string]any{"amount_cents": 1000, "external_id": "doc-1"}}, 409)
	do(webtest.Request{Method: "GET", Path: "/api/v1/payments?limit=1&status=pending", Key: s.TestKey}, 200)
	do(webtest.Request{Method: "GET", Path: "/api/v1/payments?limit=1000", Key: s.TestKey}, 400)
	do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + id, Key: s.TestKey}, 200)
	do(webtest.Request{Method: "GET", Path: "/api/v1/payments/doc-1", Key: s.TestKey}, 200)
	do(webtest.Request{Method: "GET", Path: "/api/v1/payments/none", Key: s.TestKey}, 404)
	do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + id}, 401)
	do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + id + "/pay", Key: s.TestKey}, 200)
	do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + id + "/pay", Key: s.TestKey}, 409)
	do(webtest.Request{Method: "POST", Path: "/api/v1/payments/" + id + "/refund", Key: s.TestKey}, 200)
	do(webtest.Request{Method: "POST", Path: "/api/v1/payments/" + id + "/refund", Key: s.TestKey}, 409)
	do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + id + "/expire", Key: s.LiveKey}, 403)
	do(webtest.Request{Method: "DELETE", Path: "/api/v1/payments/" + id, Key: s.TestKey}, 409)
	q := s.CreatePayment(map[string]any{"amount_cents": 50})
	do(webtest.Request{Method: "DELETE", Path: "/api/v1/payments/" + q["id"].(string), Key: s.TestKey}, 200)
	r := s.CreatePayment(map[string]any{"amount_cents": 50})
	do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + r["id"].(string) + "/expire", Key: s.TestKey}, 200)
	due := calendar.Today(time.Now()).AddDays(10).String()
	cobv := do(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: s.TestKey, Body: map[string]any{
		"amount_cents": 10000, "external_id": "doc-due", "due_date": due, "days_after_due": 5,
		"customer": map[string]any{"name": "A", "email": "a@example.com", "document": "52998224725"},
		"fine":     map[string]any{"percent": "2.00"}, "interest": map[string]any{"percent_per_month": "1.00", "business_days": true},
		"discounts": map[string]any{"per_day_early": map[string]any{"amount_cents": 10}}, "abatement": map[string]any{"amount_cents": 100},
	}}, 201).JSON(t)
	do(webtest.Request{Method: "GET", Path: "/api/v1/payments/doc-due/amount_due?date=" + due, Key: s.TestKey}, 200)
	do(webtest.Request{Method: "GET", Path: "/api/v1/payments/doc-due/amount_due?date=tomorrow", Key: s.TestKey}, 400)
	do(webtest.Request{Method: "GET", Path: "/api/v1/payments/nope/amount_due", Key: s.TestKey}, 404)
	do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + cobv["id"].(string) + "/pay", Key: s.TestKey,
		Body: map[string]any{"date": calendar.Today(time.Now()).AddDays(30).String()}}, 409)
	do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + cobv["id"].(string) + "/pay", Key: s.TestKey,
		Body: map[string]any{"date": due}}, 200)
	batch := do(webtest.Request{Method: "POST", Path: "/api/v1/payment_batches", Key: s.TestKey, Body: map[string]any{
		"description": "Lote", "payments": []any{map[string]any{"amount_cents": 100, "external_id": "lote-1"}, map[string]any{"amount_cents": 0}}}}, 201).JSON(t)
	do(webtest.Request{Method: "POST", Path: "/api/v1/payment_batches", Key: s.TestKey, Body: map[string]any{"payments": []any{}}}, 400)
	do(webtest.Request{Method: "GET", Path: "/api/v1/payment_batches/" + batch["id"].(string), Key: s.TestKey}, 200)
	do(webtest.Request{Method: "GET", Path: "/api/v1/payment_batches/pbat_nope", Key: s.TestKey}, 404)
	subBody := map[string]any{"payer": map[string]any{"name": "A", "document": "52998224725"}, "contract": "C-1", "description": "d",
		"interval": "monthly", "start_date": due, "end_date": calendar.Today(time.Now()).AddDays(400).String(), "amount_cents": 1000,
		"retry_policy": "three_in_seven_days", "journey": "authorization_with_first_payment", "metadata": map[string]any{"k": "v"}}
	sub := do(webtest.Request{Method: "POST", Path: "/api/v1/subscriptions", Key: s.TestKey, Body: subBody}, 201).JSON(t)
	subID := sub["id"].(string)
	do(webtest.Request{Method: "POST", Path: "/api/v1/subscriptions", Key: s.TestKey, Body: map[string]any{"contract": "C-1"}}, 400)
	do(webtest.Request{Method: "POST", Path: "/api/v1/subscriptions", Key: s.LiveKey, Body: subBody}, 201)
	do(webtest.Request{Method: "GET", Path: "/api/v1/subscriptions?limit=1", Key: s.TestKey}, 200)
	do(webtest.Request{Method: "GET", Path: "/api/v1/subscriptions/" + subID, Key: s.TestKey}, 200)
	do(webtest.Request{Method: "GET", Path: "/api/v1/subscriptions/sub_nope", Key: s.TestKey}, 404)
	do(webtest.Request{Method: "POST", Path: "/api/v1/subscriptions/" + subID + "/cycles", Key: s.TestKey}, 409)
	do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/subscriptions/" + subID + "/run_cycle", Key: s.TestKey}, 409)
	do(webtest.Request{Method: "GET", Path: "/pay/subscriptions/" + subID + "/qr.png"}, 200)
	do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/subscriptions/" + subID + "/authorize", Key: s.TestKey}, 200)
	do(webtest.Request{Method: "GET", Path: "/pay/subscriptions/" + subID + "/qr.png"}, 404)
	do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/subscriptions/" + subID + "/reject", Key: s.TestKey}, 409)
	do(webtest.Request{Method: "POST", Path: "/api/v1/subscriptions/" + subID + "/cycles", Key: s.TestKey}, 201)
	do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/subscriptions/" + subID + "/run_cycle", Key: s.TestKey,
		Body: map[string]any{"outcome": "insufficient_balance"}}, 200)
	do(webtest.Request{Method: "GET", Path: "/api/v1/payments?subscription=" + subID, Key: s.TestKey}, 200)
	do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/subscriptions/" + subID + "/payer_cancel", Key: s.TestKey}, 200)
	do(webtest.Request{Method: "POST", Path: "/api/v1/subscriptions/" + subID + "/cancel", Key: s.TestKey}, 200)
	do(webtest.Request{Method: "POST", Path: "/api/v1/subscriptions/sub_nope/cancel", Key: s.TestKey}, 404)
	doc := do(webtest.Request{Method: "GET", Path: "/api/v1/openapi.json"}, 200).JSON(t)
	require.Equal(t, "3.1.0", doc["openapi"])
	live := do(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: s.LiveKey, Body: map[string]any{"amount_cents": 50}}, 201).JSON(t)
	payE2E := s.PSP.Pay(live["correlation_id"].(string)).EndToEndID
	s.WaitForPayment(s.LiveKey, live["id"].(string), "paid", 10*time.Second)
	callbackPath := strings.TrimPrefix(s.PSP.CallbackURL, s.URL) + "/pix"
	do(webtest.Request{Method: "POST", Path: callbackPath, Body: map[string]any{"pix": []any{map[string]any{"endToEndId": payE2E}}}}, 200)
	do(webtest.Request{Method: "POST", Path: "/psp/webhook/nope/pix", Body: map[string]any{"pix": []any{map[string]any{"endToEndId": payE2E}}}}, 401)
	do(webtest.Request{Method: "POST", Path: callbackPath, Body: map[string]any{"pix": []any{}}}, 400)
	do(webtest.Request{Method: "POST", Path: "/psp/webhook/pix", Body: map[string]any{"pix": []any{map[string]any{"endToEndId": payE2E}}}}, 401)
	recPath := strings.TrimPrefix(s.PSP.CallbackURL, s.URL) + "/rec"
	do(webtest.Request{Method: "POST", Path: recPath, Body: map[string]any{"recs": []any{map[string]any{"idRec": "RN999999992026112600000000000"}}}}, 200)
	do(webtest.Request{Method: "POST", Path: recPath, Body: map[string]any{"recs": []any{map[string]any{"idRec": "short"}}}}, 400)
	do(webtest.Request{Method: "POST", Path: "/psp/webhook/rec", Body: map[string]any{"recs": []any{map[string]any{"idRec": "RN999999992026112600000000000"}}}}, 401)
	cobrPath := strings.TrimPrefix(s.PSP.CallbackURL, s.URL) + "/cobr"
	do(webtest.Request{Method: "POST", Path: cobrPath, Body: map[string]any{"cobsr": []any{map[string]any{"txid": live["correlation_id"]}}}}, 200)
	do(webtest.Request{Method: "POST", Path: "/psp/webhook/nope/cobr", Body: map[string]any{"cobsr": []any{map[string]any{"txid": live["correlation_id"]}}}}, 401)
	do(webtest.Request{Method: "POST", Path: "/psp/webhook/cobr", Body: map[string]any{"cobsr": []any{}}}, 401)
	infracoesPath := strings.TrimPrefix(s.PSP.CallbackURL, s.URL) + "/infracoes"
	do(webtest.Request{Method: "POST", Path: infracoesPath, Body: map[string]any{"infracoes": []any{map[string]any{"idInfracao": "INF1", "situacao": "BLOQUEADA"}}}}, 200)
	do(webtest.Request{Method: "POST", Path: infracoesPath, Body: map[string]any{"infracoes": []any{map[string]any{"idInfracao": "not/an/id"}}}}, 400)
	do(webtest.Request{Method: "POST", Path: "/psp/webhook/nope/infracoes", Body: map[string]any{"infracoes": []any{map[string]any{"idInfracao": "INF1"}}}}, 401)
	do(webtest.Request{Method: "POST", Path: "/psp/webhook/infracoes", Body: map[string]any{"infracoes": []any{map[string]any{"idInfracao": "INF1"}}}}, 401)
	medPath := strings.TrimPrefix(s.PSP.CallbackURL, s.URL) + "/med"
	do(webtest.Request{Method: "POST", Path: medPath, Body: map[string]any{"med": []any{map[string]any{"idSolicitacao": "0355abc", "situacao": "DEVOLVIDA"}}}}, 200)
	do(webtest.Request{Method: "POST", Path: medPath, Body: map[string]any{"med": []any{}}}, 400)
	do(webtest.Request{Method: "POST", Path: "/psp/webhook/nope/med", Body: map[string]any{"med": []any{map[string]any{"idSolicitacao": "x"}}}}, 401)
	do(webtest.Request{Method: "POST", Path: "/psp/webhook/med", Body: map[string]any{"med": []any{map[string]any{"idSolicitacao": "x"}}}}, 401)
	psp := map[string]string{"Authorization": "Bearer " + webtest.PSPToken}
	do(webtest.Request{Method: "POST", Path: "/psp/disputes", Headers: psp, Body: map[string]any{
		"id": "MED-1", "endToEndId": payE2E, "reason": "fraud", "status": "won"}}, 200)
	do(webtest.Request{Method: "POST", Path: "/psp/disputes", Headers: psp, Body: map[string]any{
		"id": "MED-1", "endToEndId": payE2E, "reason": "fraud", "status": "lost"}}, 409)
	do(webtest.Request{Method: "POST", Path: "/psp/disputes", Headers: psp, Body: map[string]any{
		"id": "MED-2", "endToEndId": "E0000000000000000000000000000009", "reason": "fraud", "status": "open"}}, 404)
	paid := s.CreatePayment(map[string]any{"amount_cents": 5000})
	do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + paid["id"].(string) + "/pay", Key: s.TestKey}, 200)
	dsp := do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + paid["id"].(string) + "/dispute", Key: s.TestKey,
		Body: map[string]any{"reason": "operational_failure"}}, 201).JSON(t)
	// A second report holds what is left; the first is answered with a file.
	do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + paid["id"].(string) + "/dispute", Key: s.TestKey,
		Body: map[string]any{"amount_cents": 100}}, 201)
	do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + paid["id"].(string) + "/dispute", Key: s.TestKey,
		Body: map[string]any{"amount_cents": 5001}}, 400)
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	_ = mw.WriteField("text", "O pagador autorizou a compra.")
	part, _ := mw.CreateFormFile("evidence", "tela.png")
	_, _ = part.Write([]byte("\x89PNG\r\n\x1a\n tela"))
	_ = mw.Close()
	defended := do(webtest.Request{Method: "POST", Path: "/api/v1/disputes/" + dsp["id"].(string) + "/defense", Key: s.TestKey, Body: form.Bytes(),
		Headers: map[string]string{"Content-Type": mw.FormDataContentType()}}, 200).JSON(t)
	do(webtest.Request{Method: "POST", Path: "/api/v1/disputes/" + dsp["id"].(string) + "/defense", Key: s.TestKey,
		Body: map[string]any{"text": "De novo."}}, 409)
	do(webtest.Request{Method: "POST", Path: "/api/v1/disputes/" + dsp["id"].(string) + "/defense", Key: s.TestKey, Body: "text=x",
		Headers: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}}, 415)
	do(webtest.Request{Method: "POST", Path: "/api/v1/disputes/dsp_nope/defense", Key: s.TestKey, Body: map[string]any{"text": "x"}}, 404)
	do(webtest.Request{Method: "POST", Path: "/api/v1/disputes/" + dsp["id"].(string) + "/defense", Key: s.TestKey, Body: map[string]any{}}, 400)
	evidenceURL := defended["defense"].(map[string]any)["evidence"].([]any)[0].(map[string]any)["url"].(string)
	do(webtest.Request{Method: "GET", Path: evidenceURL, Key: s.TestKey}, 200)
	do(webtest.Request{Method: "GET", Path: "/api/v1/disputes/" + dsp["id"].(string) + "/evidence/file_nope", Key: s.TestKey}, 404)
	do(webtest.Request{Method: "GET", Path: "/api/v1/disputes?limit=1", Key: s.TestKey}, 200)
	do(webtest.Request{Method: "GET", Path: "/api/v1/disputes?starting_after=dsp_nope", Key: s.TestKey}, 400)
	do(webtest.Request{Method: "GET", Path: "/api/v1/disputes/" + dsp["id"].(string), Key: s.TestKey}, 200)
	do(webtest.Request{Method: "GET", Path: "/api/v1/disputes/dsp_nope", Key: s.TestKey}, 404)
	do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/disputes/" + dsp["id"].(string) + "/win", Key: s.TestKey}, 200)
	do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/disputes/" + dsp["id"].(string) + "/lose", Key: s.TestKey}, 409)
	do(webtest.Request{Method: "GET", Path: "/api/v1/balance", Key: s.TestKey}, 200)
	wd := do(webtest.Request{Method: "POST", Path: "/api/v1/withdrawals", Key: s.TestKey, Body: map[string]any{
		"amount_cents": 100, "pix_key": "ana@example.com", "description": "d", "metadata": map[string]any{"k": "v"}}}, 201).JSON(t)
	do(webtest.Request{Method: "POST", Path: "/api/v1/withdrawals", Key: s.TestKey, Body: map[string]any{"amount_cents": 100_000_000, "pix_key": "ana@example.com"}}, 409)
	do(webtest.Request{Method: "POST", Path: "/api/v1/withdrawals", Key: s.TestKey, Body: map[string]any{"amount_cents": 1, "pix_key": "nope"}}, 400)
	do(webtest.Request{Method: "GET", Path: "/api/v1/withdrawals?status=pending", Key: s.TestKey}, 200)
	do(webtest.Request{Method: "GET", Path: "/api/v1/withdrawals/" + wd["id"].(string), Key: s.TestKey}, 200)
	do(webtest.Request{Method: "GET", Path: "/api/v1/withdrawals/wd_nope", Key: s.TestKey}, 404)
	do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/withdrawals/" + wd["id"].(string) + "/complete", Key: s.TestKey}, 200)
	do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/withdrawals/" + wd["id"].(string) + "/fail", Key: s.TestKey}, 409)
	qr := do(webtest.Request{Method: "POST", Path: "/api/v1/pix_qr_codes", Key: s.TestKey, Body: map[string]any{"amount_cents": 990,
		"description": "Café", "expires_at": "2099-01-01T00:00:00Z"}}, 201).JSON(t)
	do(webtest.Request{Method: "POST", Path: "/api/v1/pix_qr_codes", Key: s.TestKey, Body: map[string]any{"amount_cents": 0}}, 400)
	do(webtest.Request{Method: "GET", Path: "/api/v1/pix_qr_codes?limit=1", Key: s.TestKey}, 200)
	do(webtest.Request{Method: "GET", Path: "/api/v1/pix_qr_codes/" + qr["id"].(string), Key: s.TestKey}, 200)
	do(webtest.Request{Method: "GET", Path: "/api/v1/pix_qr_codes/pqr_nope", Key: s.TestKey}, 404)
	do(webtest.Request{Method: "GET", Path: "/pay/qr/" + qr["id"].(string) + "/qr.png"}, 200)
	do(webtest.Request{Method: "GET", Path: "/pay/qr/pqr_nope/qr.png"}, 404)
	do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/pix_qr_codes/" + qr["id"].(string) + "/pay", Key: s.TestKey}, 201)
	do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/pix_qr_codes/" + qr["id"].(string) + "/pay", Key: s.TestKey,
		Body: map[string]any{"amount_cents": 1}}, 400)
	do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/pix_qr_codes/pqr_nope/pay", Key: s.TestKey}, 404)
	do(webtest.Request{Method: "GET", Path: "/api/v1/payments?pix_qr_code=" + qr["id"].(string), Key: s.TestKey}, 200)
	do(webtest.Request{Method: "POST", Path: "/api/v1/pix_qr_codes/" + qr["id"].(string) + "/deactivate", Key: s.TestKey}, 200)
	do(webtest.Request{Method: "POST", Path: "/api/v1/pix_qr_codes/pqr_nope/deactivate", Key: s.TestKey}, 404)
	do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/pix_qr_codes/" + qr["id"].(string) + "/pay", Key: s.TestKey}, 409)
	link := do(webtest.Request{Method: "POST", Path: "/api/v1/payment_links", Key: s.TestKey, Body: map[string]any{"description": "Ingresso",
		"amount_cents": 2_000, "collect": []string{"name", "document", "email"}, "max_uses": 10, "expires_at": "2099-01-01T00:00:00Z"}}, 201).JSON(t)
	do(webtest.Request{Method: "POST", Path: "/api/v1/payment_links", Key: s.TestKey, Body: map[string]any{"description": "Doação",
		"min_amount_cents": 500, "max_amount_cents": 9_000}}, 201)
	do(webtest.Request{Method: "POST", Path: "/api/v1/payment_links", Key: s.TestKey, Body: map[string]any{"amount_cents": 1}}, 400)
	do(webtest.Request{Method: "GET", Path: "/api/v1/payment_links?limit=1", Key: s.TestKey}, 200)
	do(webtest.Request{Method: "GET", Path: "/api/v1/payment_links/" + link["id"].(string), Key: s.TestKey}, 200)
	do(webtest.Request{Method: "GET", Path: "/api/v1/payment_links/plink_nope", Key: s.TestKey}, 404)
	do(webtest.Request{Method: "GET", Path: "/pay/link/" + link["id"].(string) + "/qr.png"}, 200)
	do(webtest.Request{Method: "GET", Path: "/pay/link/plink_nope/qr.png"}, 404)
	do(webtest.Request{Method: "GET", Path: "/api/v1/payments?payment_link=" + link["id"].(string), Key: s.TestKey}, 200)
	do(webtest.Request{Method: "POST", Path: "/api/v1/payment_links/" + link["id"].(string) + "/deactivate", Key: s.TestKey}, 200)
	do(webtest.Request{Method: "POST", Path: "/api/v1/payment_links/plink_nope/deactivate", Key: s.TestKey}, 404)
	seller := do(webtest.Request{Method: "POST", Path: "/api/v1/subaccounts", Key: s.TestKey, Body: map[string]any{"name": "Padaria",
		"document": "12.ABC.345/01DE-35", "email": "padaria@example.com", "pix_key": "padaria@example.com"}}, 201).JSON(t)
	do(webtest.Request{Method: "POST", Path: "/api/v1/subaccounts", Key: s.TestKey, Body: map[string]any{"name": "Padaria"}}, 400)
	do(webtest.Request{Method: "GET", Path: "/api/v1/subaccounts?limit=1", Key: s.TestKey}, 200)
	do(webtest.Request{Method: "GET", Path: "/api/v1/subaccounts/" + seller["id"].(string), Key: s.TestKey}, 200)
	do(webtest.Request{Method: "GET", Path: "/api/v1/subaccounts/acct_nope", Key: s.TestKey}, 404)
	do(webtest.Request{Method: "GET", Path: "/api/v1/balance", Key: s.TestKey, Headers: map[string]string{"Payments-Account": seller["id"].(string)}}, 200)
	do(webtest.Request{Method: "GET", Path: "/api/v1/balance", Key: s.TestKey, Headers: map[string]string{"Payments-Account": "acct_nope"}}, 403)
	contestPath := "/api/v1/withdrawals/" + wd["id"].(string) + "/contest"
	do(webtest.Request{Method: "POST", Path: contestPath, Key: s.TestKey, Body: map[string]any{"reason": "fraud"}}, 400)
	do(webtest.Request{Method: "POST", Path: contestPath, Key: s.TestKey, Body: map[string]any{"reason": "fraud", "description": "Golpe."}}, 200)
	do(webtest.Request{Method: "POST", Path: contestPath, Key: s.TestKey, Body: map[string]any{"reason": "fraud", "description": "Golpe."}}, 409)
	do(webtest.Request{Method: "POST", Path: "/api/v1/withdrawals/wd_nope/contest", Key: s.TestKey, Body: map[string]any{"reason": "fraud", "description": "x"}}, 404)
	do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/withdrawals/" + wd["id"].(string) + "/contest_result", Key: s.TestKey,
		Body: map[string]any{"amount_returned_cents": 100}}, 200)
	do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/withdrawals/" + wd["id"].(string) + "/contest_result", Key: s.TestKey,
		Body: map[string]any{"amount_returned_cents": 0}}, 409)
	do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/withdrawals/" + wd["id"].(string) + "/contest_result", Key: s.TestKey,
		Body: map[string]any{}}, 400)
	wd2 := do(webtest.Request{Method: "POST", Path: "/api/v1/withdrawals", Key: s.TestKey, Body: map[string]any{"amount_cents": 100, "pix_key": "+5561988880000"}}, 201).JSON(t)
	do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/withdrawals/" + wd2["id"].(string) + "/fail", Key: s.TestKey,
		Body: map[string]any{"failure_reason": "Key not found"}}, 200)
	do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/withdrawals/" + wd2["id"].(string) + "/complete", Key: s.LiveKey}, 403)
	refunded := s.Fund(s.TestKey, 10_000)
	re := do(webtest.Request{Method: "POST", Path: "/api/v1/refunds", Key: s.TestKey, Body: map[string]any{
		"payment": refunded, "amount_cents": 2_500, "description": "Troca"}}, 201).JSON(t)
	do(webtest.Request{Method: "POST", Path: "/api/v1/refunds", Key: s.TestKey, Body: map[string]any{"payment": refunded, "amount_cents": 7_501}}, 400)
	do(webtest.Request{Method: "POST", Path: "/api/v1/refunds", Key: s.TestKey, Body: map[string]any{"payment": "nope"}}, 404)
	do(webtest.Request{Method: "GET", Path: "/api/v1/refunds?status=pending", Key: s.TestKey}, 200)
	do(webtest.Request{Method: "GET", Path: "/api/v1/refunds/" + re["id"].(string), Key: s.TestKey}, 200)
	do(webtest.Request{Method: "GET", Path: "/api/v1/refunds/re_nope", Key: s.TestKey}, 404)
	do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/refunds/" + re["id"].(string) + "/succeed", Key: s.LiveKey}, 403)
	do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/refunds/" + re["id"].(string) + "/succeed", Key: s.TestKey}, 200)
	do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/refunds/" + re["id"].(string) + "/fail", Key: s.TestKey}, 409)
	re2 := do(webtest.Request{Method: "POST", Path: "/api/v1/refunds", Key: s.TestKey, Body: map[string]any{"payment": refunded}}, 201).JSON(t)
	require.Equal(t, float64(7_500), re2["amount_cents"], "what is left")
	do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/refunds/" + re2["id"].(string) + "/fail", Key: s.TestKey,
		Body: map[string]any{"failure_reason": "Conta encerrada"}}, 200)
	do(webtest.Request{Method: "GET", Path: "/healthz"}, 200)
	do(webtest.Request{Method: "GET", Path: "/readyz"}, 200)
	do(webtest.Request{Method: "GET", Path: "/pay/" + s.CreatePayment(map[string]any{"amount_cents": 10})["id"].(string) + "/qr.png"}, 200)
	do(webtest.Request{Method: "GET", Path: "/pay/" + id + "/qr.png"}, 404) // refunded: no code to pay

	receiver := webtest.NewReceiver(t, nil)
	wh := do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks", Key: s.TestKey,
		Body: map[string]any{"url": receiver.URL, "events": []string{"payment.paid", "payment.created"}}}, 201).JSON(t)
	whID := wh["id"].(string)
	do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks", Key: s.TestKey, Body: map[string]any{"url": "ftp://x", "events": []string{"payment.paid"}}}, 400)
	do(webtest.Request{Method: "GET", Path: "/api/v1/webhooks", Key: s.TestKey}, 200)
	do(webtest.Request{Method: "GET", Path: "/api/v1/webhooks/" + whID, Key: s.TestKey}, 200)
	do(webtest.Request{Method: "GET", Path: "/api/v1/webhooks/wh_nope", Key: s.TestKey}, 404)
	do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + whID, Key: s.TestKey, Body: map[string]any{"name": "Orders"}}, 200)
	do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + whID + "/rotate_secret", Key: s.TestKey}, 200)
	do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + whID + "/test", Key: s.TestKey}, 200)
	s.CreatePayment(map[string]any{"amount_cents": 10})
	require.Equal(t, 1, s.Dispatcher.RunOnce(context.Background(), 10))
	deliveries := do(webtest.Request{Method: "GET", Path: "/api/v1/webhooks/" + whID + "/deliveries", Key: s.TestKey}, 200).JSON(t)
	dlvID := deliveries["data"].([]any)[0].(map[string]any)["id"].(string)
	do(webtest.Request{Method: "GET", Path: "/api/v1/webhooks/" + whID + "/deliveries/" + dlvID, Key: s.TestKey}, 200)
	do(webtest.Request{Method: "GET", Path: "/api/v1/webhooks/" + whID + "/deliveries/whd_nope", Key: s.TestKey}, 404)
	do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + whID + "/deliveries/" + dlvID + "/resend", Key: s.TestKey}, 200)
	do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + whID + "/resend_failed", Key: s.TestKey, Body: map[string]any{"since": 0}}, 200)
	do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + whID + "/recover", Key: s.TestKey, Body: map[string]any{"since": 0}}, 200)
	do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + whID + "/recover", Key: s.TestKey, Body: map[string]any{}}, 400)
	replay := do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + whID + "/replay", Key: s.TestKey,
		Body: map[string]any{"from": 0, "to": "2100-01-01T00:00:00Z", "types": []string{"payment.created"}}}, 202).JSON(t)
	do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + whID + "/replay", Key: s.TestKey, Body: map[string]any{"from": 0, "to": 1}}, 409)
	do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + whID + "/replay", Key: s.TestKey,
		Body: map[string]any{"from": 0, "to": 1, "types": []string{"refund.failed"}}}, 400)
	do(webtest.Request{Method: "GET", Path: "/api/v1/webhooks/" + whID + "/replays", Key: s.TestKey}, 200)
	do(webtest.Request{Method: "GET", Path: "/api/v1/event_types", Key: s.TestKey}, 200)
	do(webtest.Request{Method: "GET", Path: "/api/v1/event_types?limit=1", Key: s.TestKey}, 400)
	do(webtest.Request{Method: "GET", Path: "/api/v1/api_versions", Key: s.TestKey}, 200)
	do(webtest.Request{Method: "GET", Path: "/api/v1/api_versions?limit=1", Key: s.TestKey}, 400)
	do(webtest.Request{Method: "GET", Path: "/api/v1/api_versions", Key: s.TestKey, Headers: map[string]string{"Payments-Version": "2020-01-01"}}, 400)
	do(webtest.Request{Method: "GET", Path: "/api/v1/webhooks/" + whID + "/replays/" + replay["id"].(string), Key: s.TestKey}, 200)
	do(webtest.Request{Method: "GET", Path: "/api/v1/webhooks/" + whID + "/replays/rpl_nope", Key: s.TestKey}, 404)
	do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + whID, Key: s.TestKey, Body: map[string]any{"rate_limit": 5}}, 200)
	do(webtest.Request{Method: "POST", Path: "/api/v1/webhooks/" + whID, Key: s.TestKey, Body: map[string]any{"rate_limit": 0}}, 400)
	events := do(webtest.Request{Method: "GET", Path: "/api/v1/events?limit=3", Key: s.TestKey}, 200).JSON(t)
	evtID := events["data"].([]any)[0].(map[string]any)["id"].(string)
	do(webtest.Request{Method: "GET", Path: "/api/v1/events?type=payment.paid&delivery_success=false", Key: s.TestKey}, 200)
	do(webtest.Request{Method: "GET", Path: "/api/v1/events?type=nope", Key: s.TestKey}, 400)
	do(webtest.Request{Method: "GET", Path: "/api/v1/events/" + evtID, Key: s.TestKey}, 200)
	do(webtest.Request{Method: "GET", Path: "/api/v1/events/evt_nope", Key: s.TestKey}, 404)
	do(webtest.Request{Method: "POST", Path: "/api/v1/events/" + evtID + "/resend", Key: s.TestKey}, 200)
	do(webtest.Request{Method: "POST", Path: "/api/v1/events/" + evtID + "/resend", Key: s.TestKey, Body: map[string]any{"webhook": "wh_nope"}}, 400)
	do(webtest.Request{Method: "POST", Path: "/api/v1/events/evt_nope/resend", Key: s.TestKey}, 404)
	// The stream's 200 never ends; its own test reads it (handlers/api).
	do(webtest.Request{Method: "GET", Path: "/api/v1/events/stream?api_version=v3", Key: s.TestKey}, 400)
	do(webtest.Request{Method: "DELETE", Path: "/api/v1/webhooks/" + whID, Key: s.TestKey}, 200)
	today := time.Now().In(calendar.Brasilia).Format(time.DateOnly)
	report := do(webtest.Request{Method: "POST", Path: "/api/v1/reports", Key: s.TestKey,
		Body: map[string]any{"type": "payments", "format": "xlsx", "from": today, "to": today}}, 201).JSON(t)["id"].(string)
	do(webtest.Request{Method: "POST", Path: "/api/v1/reports", Key: s.TestKey, Body: map[string]any{"type": "payments", "format": "ofx"}}, 400)
	do(webtest.Request{Method: "GET", Path: "/api/v1/reports/" + report + "/file", Key: s.TestKey}, 409)
	for _, format := range []string{"csv", "ofx"} {
		do(webtest.Request{Method: "POST", Path: "/api/v1/reports", Key: s.TestKey,
			Body: map[string]any{"type": "ledger", "format": format, "from": today, "to": today}}, 201)
	}
	for {
		built, err := s.Reports.BuildNext(context.Background())
		require.NoError(t, err)
		if !built {
			break
		}
	}
	do(webtest.Request{Method: "GET", Path: "/api/v1/reports?status=ready", Key: s.TestKey}, 200)
	do(webtest.Request{Method: "GET", Path: "/api/v1/reports/" + report, Key: s.TestKey}, 200)
	do(webtest.Request{Method: "GET", Path: "/api/v1/reports/rpt_nope", Key: s.TestKey}, 404)
	for _, r := range do(webtest.Request{Method: "GET", Path: "/api/v1/reports", Key: s.TestKey}, 200).JSON(t)["data"].([]any) {
		do(webtest.Request{Method: "GET", Path: "/api/v1/reports/" + r.(map[string]any)["id"].(string) + "/file", Key: s.TestKey}, 200)
	}
	do(webtest.Request{Method: "GET", Path: "/api/v1/reports/rpt_nope/file", Key: s.TestKey}, 404)

	for _, op := range webtest.DocumentedOperations() {
		require.True(t, covered[op], "no test call reached %s", op)
	}
}

// The document served and committed is the one web.OpenAPI builds now.
func TestOpenAPIDocumentIsGenerated(t *testing.T) {
	t.Parallel()
	doc, err := web.OpenAPI()
	require.NoError(t, err)
	require.Equal(t, string(doc), string(web.OpenAPIDocument), "run `make generate` and commit web/openapi.json")
}

// Redocly's recommended rules find no error in the document.
func TestOpenAPIDocumentLints(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	redocly := filepath.Join(root, "node_modules", ".bin", "redocly")
	if _, err := os.Stat(redocly); err != nil {
		t.Fatalf("redocly is not installed: run the suite with `make test`, which installs package.json's tools (%v)", err)
	}
	cmd := exec.Command(redocly, "lint", "--format", "stylish", filepath.Join(root, "web", "openapi.json"))
	cmd.Env = append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "redocly lint:\n%s", out)
}
