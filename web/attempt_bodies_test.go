package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// An attempt keeps at most 16 KiB of the body it sent and of the answer:
// the cut is recorded among its headers ("(body truncated)": the sent
// body's length, or that the answer was longer), shown in the console in
// words, and a row past 8 kB is stored compressed (lz4).
func TestAttemptBodiesAreBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	long := strings.Repeat("resposta longa ", 2000) // 30,000 bytes
	recv := webtest.NewReceiver(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(long)) })
	hook, _ := s.CreateWebhook(recv.URL, map[string]any{"events": []string{"payment.created"}})
	metadata := map[string]any{}
	for i := range 50 {
		metadata[fmt.Sprintf("campo_%02d", i)] = strings.Repeat("x", 400)
	}
	s.CreatePayment(map[string]any{"amount_cents": 1000, "metadata": metadata})
	s.Dispatcher.RunOnce(ctx, 10)
	sent := recv.WaitFor(1, 5*time.Second)[0].Body
	require.Greater(t, len(sent), 16<<10)

	var row struct {
		DeliveryID  string `bun:"delivery_id"`
		Request     string `bun:"request_body"`
		SentBytes   string `bun:"sent"`
		Response    []byte `bun:"response_body"`
		Answered    string `bun:"answered"`
		Compression string `bun:"compression"`
	}
	require.NoError(t, s.DB.NewRaw(`SELECT delivery_id, request_body, request_headers ->> '(body truncated)' AS sent, response_body,
		response_headers -> '(body truncated)' ->> 0 AS answered, pg_column_compression(request_body) AS compression
		FROM delivery_attempts`).Scan(ctx, &row))
	require.Equal(t, string(sent[:16<<10]), row.Request)
	require.Equal(t, strconv.Itoa(len(sent)), row.SentBytes)
	require.Equal(t, long[:16<<10], string(row.Response))
	require.Equal(t, "more than 16384", row.Answered)
	require.Equal(t, "lz4", row.Compression)

	b := newBrowser(t, s)
	b.login("owner@example.com", "correct-horse-battery")
	page := b.do("GET", "/dashboard/webhooks/"+hook+"/deliveries/"+row.DeliveryID, nil, nil)
	require.Equal(t, http.StatusOK, page.status)
	grouped := strconv.Itoa(len(sent)/1000) + "." + fmt.Sprintf("%03d", len(sent)%1000)
	require.Equal(t, "Corpo cortado: "+grouped+" bytes enviados, guardados os primeiros 16 KiB. O evento inteiro está na API de eventos.",
		strings.TrimSpace(page.doc.Find(`[data-testid="attempt-request-truncated"]`).Text()))
	require.Equal(t, "Corpo cortado: a resposta passou de 16 KiB, guardados os primeiros 16 KiB.",
		strings.TrimSpace(page.doc.Find(`[data-testid="attempt-response-truncated"]`).Text()))
	require.NotContains(t, page.doc.Find(`[data-testid="attempt-request-headers"]`).Text(), "(body truncated)")

	// The API shows the cut the same way, among the headers.
	r := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/events?type=payment.created", Key: s.TestKey})
	require.Equal(t, http.StatusOK, r.Status)
	evt := r.JSON(t)["data"].([]any)[0].(map[string]any)["id"].(string)
	r = s.Do(webtest.Request{Method: "GET", Path: "/api/v1/events/" + evt, Key: s.TestKey})
	attempt := r.JSON(t)["deliveries"].(map[string]any)["data"].([]any)[0].(map[string]any)["attempts"].([]any)[0].(map[string]any)
	require.Equal(t, strconv.Itoa(len(sent)), attempt["request"].(map[string]any)["headers"].(map[string]any)["(body truncated)"])
}
