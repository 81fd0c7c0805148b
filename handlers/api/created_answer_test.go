package api_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// A creation answers with its payment.created event's JSON rather than the
// payment written again: that text is, byte for byte, what a GET of the
// payment answers right after, for a plain charge, one with a customer and
// metadata, a split charge and a due-date charge, in every header but the
// request's own.
func TestACreationAnswersWhatAGetAnswers(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithClock(noonOf("2026-03-02")))
	p := newSplitPlatform(t, s)
	for name, body := range map[string]map[string]any{
		"plain": {"amount_cents": 1_990},
		"customer and metadata": {"amount_cents": 1_990, "description": "Camiseta \"azul\" <M>", "external_id": "pedido-7",
			"metadata": map[string]any{"canal": "loja", "ação": "é"}, "customer": ana},
		"split": {"amount_cents": 10_000, "splits": []any{
			map[string]any{"account": p.sellerA, "amount_cents": 3_000},
			map[string]any{"account": p.sellerB, "percent": 12.5, "fee_payer": "recipient"}}},
		"due date": dueBody(nil),
	} {
		created := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: s.TestKey, Body: body})
		require.Equal(t, http.StatusCreated, created.Status, "%s: %s", name, created.Body)
		require.Equal(t, "application/json", created.Header.Get("Content-Type"), name)
		id := created.JSON(t)["id"].(string)
		require.Equal(t, "/api/v1/payments/"+id, created.Header.Get("Location"), name)
		got := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + id, Key: s.TestKey})
		require.Equal(t, http.StatusOK, got.Status, "%s: %s", name, got.Body)
		require.Equal(t, string(got.Body), string(created.Body), name)
		require.Equal(t, got.Header.Get("Content-Type"), created.Header.Get("Content-Type"), name)
	}
}
