package api_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

func createWithKey(s *webtest.Server, key string, body any) *webtest.Response {
	return s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: s.TestKey, Body: body,
		Headers: map[string]string{"Idempotency-Key": key}})
}

func countPayments(t *testing.T, s *webtest.Server) int {
	t.Helper()
	var n int
	require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM payments").Scan(context.Background(), &n))
	return n
}

func TestIdempotentReplay(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithPSP(webtest.PSPOptions{}))
	first := createWithKey(s, "key-1", map[string]any{"amount_cents": 700})
	require.Equal(t, http.StatusCreated, first.Status)
	require.Empty(t, first.Header.Get("Idempotent-Replayed"))

	replay := createWithKey(s, "key-1", map[string]any{"amount_cents": 700})
	require.Equal(t, http.StatusCreated, replay.Status)
	require.Equal(t, "true", replay.Header.Get("Idempotent-Replayed"))
	require.JSONEq(t, string(first.Body), string(replay.Body))
	require.NotEqual(t, first.Header.Get("X-Request-Id"), replay.Header.Get("X-Request-Id"))
	require.Equal(t, 1, countPayments(t, s))

	// Errors are remembered too: the same bad request replays the same 4xx.
	bad := createWithKey(s, "key-2", map[string]any{"amount_cents": 0})
	require.Equal(t, http.StatusBadRequest, bad.Status)
	badAgain := createWithKey(s, "key-2", map[string]any{"amount_cents": 0})
	require.Equal(t, "true", badAgain.Header.Get("Idempotent-Replayed"))
	require.Equal(t, string(bad.Body), string(badAgain.Body))

	// Keys are per mode: the same key with the live key is a new request.
	live := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: s.LiveKey,
		Body: map[string]any{"amount_cents": 700}, Headers: map[string]string{"Idempotency-Key": "key-1"}})
	require.Equal(t, http.StatusCreated, live.Status)
	require.Empty(t, live.Header.Get("Idempotent-Replayed"))

	// A 409 from a unique violation is remembered without aborting the request's transaction.
	s.CreatePayment(map[string]any{"amount_cents": 100, "external_id": "dup"})
	conflict := createWithKey(s, "key-3", map[string]any{"amount_cents": 100, "external_id": "dup"})
	require.Equal(t, http.StatusConflict, conflict.Status)
	require.Equal(t, "external_id_taken", conflict.ErrorCode(t))
	conflictAgain := createWithKey(s, "key-3", map[string]any{"amount_cents": 100, "external_id": "dup"})
	require.Equal(t, "true", conflictAgain.Header.Get("Idempotent-Replayed"))
	require.Equal(t, http.StatusConflict, conflictAgain.Status)

	// Test helpers are POSTs too.
	p := s.CreatePayment(map[string]any{"amount_cents": 100})
	pay := func() *webtest.Response {
		return s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + p["id"].(string) + "/pay",
			Key: s.TestKey, Headers: map[string]string{"Idempotency-Key": "pay-1"}})
	}
	require.Equal(t, http.StatusOK, pay().Status)
	again := pay()
	require.Equal(t, http.StatusOK, again.Status, "replayed, not 409 already paid")
	require.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
}

func TestIdempotencyKeyReusedWithAnotherBody(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	require.Equal(t, http.StatusCreated, createWithKey(s, "k", map[string]any{"amount_cents": 700}).Status)
	r := createWithKey(s, "k", map[string]any{"amount_cents": 701})
	require.Equal(t, http.StatusUnprocessableEntity, r.Status)
	require.Equal(t, "idempotency_key_reused", r.ErrorCode(t))
	require.Equal(t, "idempotency_error", r.JSON(t)["error"].(map[string]any)["type"])
	require.Equal(t, 1, countPayments(t, s))

	long := createWithKey(s, strings.Repeat("k", 256), map[string]any{"amount_cents": 700})
	require.Equal(t, http.StatusBadRequest, long.Status)
	require.Equal(t, "idempotency_key_invalid", long.ErrorCode(t))
}

// TestIdempotencyKeyInFlight holds the key's lock in another transaction,
// exactly as a request still running would, and expects 409 until it ends.
func TestIdempotencyKeyInFlight(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ctx := context.Background()
	tx, err := s.DB.BeginTx(ctx, &sql.TxOptions{})
	require.NoError(t, err)
	_, err = tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtextextended(?, 0))",
		fmt.Sprintf("idem|%s|%t|%s", s.Account.ID, false, "busy"))
	require.NoError(t, err)

	r := createWithKey(s, "busy", map[string]any{"amount_cents": 700})
	require.Equal(t, http.StatusConflict, r.Status)
	require.Equal(t, "idempotency_key_in_use", r.ErrorCode(t))
	require.Equal(t, 0, countPayments(t, s))

	require.NoError(t, tx.Rollback())
	require.Equal(t, http.StatusCreated, createWithKey(s, "busy", map[string]any{"amount_cents": 700}).Status)
}

// TestIdempotencyUnderConcurrentRetries fires the same keyed request 20
// times at once: exactly one payment exists afterwards, and every answer is
// that payment (201, first or replayed) or 409 in flight.
func TestIdempotencyUnderConcurrentRetries(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	var wg sync.WaitGroup
	responses := make([]*webtest.Response, 20)
	for i := range responses {
		wg.Go(func() { responses[i] = createWithKey(s, "race", map[string]any{"amount_cents": 900}) })
	}
	wg.Wait()
	var ids = map[string]bool{}
	for _, r := range responses {
		switch r.Status {
		case http.StatusCreated:
			ids[r.JSON(t)["id"].(string)] = true
		case http.StatusConflict:
			require.Equal(t, "idempotency_key_in_use", r.ErrorCode(t))
		default:
			t.Fatalf("unexpected %d: %s", r.Status, r.Body)
		}
	}
	require.Len(t, ids, 1)
	require.Equal(t, 1, countPayments(t, s))
}

func TestExternalIDUniqueUnderConcurrentCreates(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	var wg sync.WaitGroup
	statuses := make([]int, 20)
	codes := make([]string, 20)
	for i := range statuses {
		wg.Go(func() {
			r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: s.TestKey,
				Body: map[string]any{"amount_cents": 100 + i, "external_id": "only-one"}})
			statuses[i] = r.Status
			if r.Status != http.StatusCreated {
				codes[i] = r.ErrorCode(t)
			}
		})
	}
	wg.Wait()
	created := 0
	for i, st := range statuses {
		if st == http.StatusCreated {
			created++
			continue
		}
		require.Equal(t, http.StatusConflict, st)
		require.Equal(t, "external_id_taken", codes[i])
	}
	require.Equal(t, 1, created)
	require.Equal(t, 1, countPayments(t, s))
}
