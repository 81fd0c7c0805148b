package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/dispatcher/maintenance"
	"payments/store"
	"payments/web/webtest"
)

func TestGetByIDOrExternalID(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	a := s.CreatePayment(map[string]any{"amount_cents": 100, "external_id": "order:1"})
	// An external_id that looks like another payment's id: the id wins.
	b := s.CreatePayment(map[string]any{"amount_cents": 200, "external_id": a["id"]})
	c := s.CreatePayment(map[string]any{"amount_cents": 300, "external_id": "018f0000-0000-7000-8000-000000000000"})

	get := func(ref string) map[string]any {
		r := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + ref, Key: s.TestKey})
		require.Equal(t, http.StatusOK, r.Status, "%s: %s", ref, r.Body)
		return r.JSON(t)
	}
	require.Equal(t, a["id"], get(a["id"].(string))["id"])
	require.Equal(t, a["id"], get("order:1")["id"])
	require.Equal(t, b["id"], get(b["id"].(string))["id"])
	require.Equal(t, c["id"], get("018f0000-0000-7000-8000-000000000000")["id"], "a UUID matching no id falls back to external_id")

	for _, ref := range []string{"nope", "00000000-0000-7000-8000-000000000000", "%E2%9C%93"} {
		r := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + ref, Key: s.TestKey})
		require.Equal(t, http.StatusNotFound, r.Status)
		require.Equal(t, "resource_missing", r.ErrorCode(t))
	}
}

func TestCancelInEveryState(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	cancel := func(id string) *webtest.Response {
		return s.Do(webtest.Request{Method: "DELETE", Path: "/api/v1/payments/" + id, Key: s.TestKey})
	}
	helper := func(id, action string) *webtest.Response {
		return s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + id + "/" + action, Key: s.TestKey})
	}

	// pending -> canceled
	p := s.CreatePayment(map[string]any{"amount_cents": 100, "external_id": "c1"})
	r := cancel("c1")
	require.Equal(t, http.StatusOK, r.Status)
	body := r.JSON(t)
	require.Equal(t, "canceled", body["status"])
	require.NotNil(t, body["canceled_at"])
	require.Equal(t, []string{"payment.created", "payment.canceled"}, s.EventTypes(p["id"].(string)))

	// canceled -> 200, unchanged, no second event
	again := cancel(p["id"].(string))
	require.Equal(t, http.StatusOK, again.Status)
	require.Equal(t, body["updated_at"], again.JSON(t)["updated_at"])
	require.Equal(t, []string{"payment.created", "payment.canceled"}, s.EventTypes(p["id"].(string)))

	// paid -> 409
	paid := s.CreatePayment(map[string]any{"amount_cents": 100})
	require.Equal(t, http.StatusOK, helper(paid["id"].(string), "pay").Status)
	r = cancel(paid["id"].(string))
	require.Equal(t, http.StatusConflict, r.Status)
	require.Equal(t, "payment_not_cancelable", r.ErrorCode(t))

	// expired -> 409
	expired := s.CreatePayment(map[string]any{"amount_cents": 100})
	require.Equal(t, http.StatusOK, helper(expired["id"].(string), "expire").Status)
	r = cancel(expired["id"].(string))
	require.Equal(t, http.StatusConflict, r.Status)
	require.Equal(t, "payment_not_cancelable", r.ErrorCode(t))

	// refunded -> 409
	refunded := s.CreatePayment(map[string]any{"amount_cents": 100})
	require.Equal(t, http.StatusOK, helper(refunded["id"].(string), "pay").Status)
	require.Equal(t, http.StatusOK, s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments/" + refunded["id"].(string) + "/refund", Key: s.TestKey}).Status)
	r = cancel(refunded["id"].(string))
	require.Equal(t, http.StatusConflict, r.Status)
	require.Equal(t, "payment_not_cancelable", r.ErrorCode(t))

	// unknown -> 404
	r = cancel("missing")
	require.Equal(t, http.StatusNotFound, r.Status)
}

func TestCancelAfterExpiryExpiresInstead(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	s := webtest.New(t, webtest.WithClock(clock))
	p := s.CreatePayment(map[string]any{"amount_cents": 100, "expires_in": 300})
	mu.Lock()
	now = now.Add(301 * time.Second)
	mu.Unlock()

	r := s.Do(webtest.Request{Method: "DELETE", Path: "/api/v1/payments/" + p["id"].(string), Key: s.TestKey})
	require.Equal(t, http.StatusConflict, r.Status)
	require.Equal(t, "payment_not_cancelable", r.ErrorCode(t))
	got := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + p["id"].(string), Key: s.TestKey}).JSON(t)
	require.Equal(t, "expired", got["status"])
	require.Equal(t, []string{"payment.created", "payment.expired"}, s.EventTypes(p["id"].(string)))
}

func TestTestHelpers(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	helper := func(key, id, action string) *webtest.Response {
		return s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + id + "/" + action, Key: key})
	}

	p := s.CreatePayment(map[string]any{"amount_cents": 4990, "external_id": "h1"})
	id := p["id"].(string)
	r := helper(s.TestKey, "h1", "pay")
	require.Equal(t, http.StatusOK, r.Status)
	paid := r.JSON(t)
	require.Equal(t, "paid", paid["status"])
	require.NotNil(t, paid["paid_at"])
	r = helper(s.TestKey, id, "pay")
	require.Equal(t, http.StatusConflict, r.Status)
	require.Equal(t, "payment_invalid_state", r.ErrorCode(t))
	r = helper(s.TestKey, id, "expire")
	require.Equal(t, http.StatusConflict, r.Status)

	// The money is real: a PSP confirmation of a canceled or expired charge makes it paid.
	for _, first := range []string{"expire", "cancel"} {
		q := s.CreatePayment(map[string]any{"amount_cents": 100})
		qid := q["id"].(string)
		if first == "expire" {
			require.Equal(t, http.StatusOK, helper(s.TestKey, qid, "expire").Status)
		} else {
			require.Equal(t, http.StatusOK, s.Do(webtest.Request{Method: "DELETE", Path: "/api/v1/payments/" + qid, Key: s.TestKey}).Status)
		}
		r := helper(s.TestKey, qid, "pay")
		require.Equal(t, http.StatusOK, r.Status)
		require.Equal(t, "paid", r.JSON(t)["status"])
	}

	// Live keys may not use test helpers, whatever the payment.
	r = helper(s.LiveKey, id, "pay")
	require.Equal(t, http.StatusForbidden, r.Status)
	require.Equal(t, "test_mode_only", r.ErrorCode(t))
	require.Equal(t, "permission_error", r.JSON(t)["error"].(map[string]any)["type"])
}

func TestEveryStateChangeWritesOneEventWithASnapshot(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	p := s.CreatePayment(validCreateBody())
	id := p["id"].(string)
	paid := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + id + "/pay", Key: s.TestKey}).JSON(t)

	var events []store.Event
	require.NoError(t, s.DB.NewSelect().Model(&events).Where("object_id = ?", id).Order("created_at", "id").Scan(context.Background()))
	require.Len(t, events, 2)
	require.Equal(t, "payment.created", events[0].Type)
	require.Equal(t, "payment.paid", events[1].Type)
	for i, want := range []map[string]any{p, paid} {
		var snapshot map[string]any
		require.NoError(t, json.Unmarshal(events[i].Data, &snapshot))
		require.Equal(t, want, snapshot, "event %d freezes the object as the API returned it", i)
		require.Equal(t, s.Account.ID, events[i].AccountID)
		require.False(t, events[i].Livemode)
		require.Regexp(t, `^evt_[0-9A-Za-z]{22}$`, events[i].ID)
	}
}

func TestExpirySweeper(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	s := webtest.New(t, webtest.WithClock(clock))
	short := s.CreatePayment(map[string]any{"amount_cents": 100, "expires_in": 300})
	long := s.CreatePayment(map[string]any{"amount_cents": 100, "expires_in": 3600})
	paid := s.CreatePayment(map[string]any{"amount_cents": 100, "expires_in": 300})
	s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + paid["id"].(string) + "/pay", Key: s.TestKey})

	require.Zero(t, maintenance.ExpireOverdue(context.Background(), s.Store, discardLogger()))
	mu.Lock()
	now = now.Add(10 * time.Minute)
	mu.Unlock()
	require.Equal(t, 1, maintenance.ExpireOverdue(context.Background(), s.Store, discardLogger()))
	require.Zero(t, maintenance.ExpireOverdue(context.Background(), s.Store, discardLogger()), "a second sweep finds nothing")

	status := func(p map[string]any) string {
		return s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + p["id"].(string), Key: s.TestKey}).JSON(t)["status"].(string)
	}
	require.Equal(t, "expired", status(short))
	require.Equal(t, "pending", status(long))
	require.Equal(t, "paid", status(paid))
	require.Equal(t, []string{"payment.created", "payment.expired"}, s.EventTypes(short["id"].(string)))
}

func TestRefunds(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	refund := func(ref string) *webtest.Response {
		return s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments/" + ref + "/refund", Key: s.TestKey})
	}
	p := s.CreatePayment(map[string]any{"amount_cents": 5000, "external_id": "r1"})
	id := p["id"].(string)

	r := refund("r1")
	require.Equal(t, http.StatusConflict, r.Status, "a pending payment is not refundable")
	require.Equal(t, "payment_not_refundable", r.ErrorCode(t))

	s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + id + "/pay", Key: s.TestKey})
	r = refund("r1")
	require.Equal(t, http.StatusOK, r.Status)
	body := r.JSON(t)
	require.Equal(t, "refunded", body["status"])
	require.NotNil(t, body["refunded_at"])
	require.NotNil(t, body["paid_at"], "the payment stays paid-then-refunded in its history")

	again := refund(id)
	require.Equal(t, http.StatusConflict, again.Status, "refunds are full: a second one is refused")
	require.Equal(t, []string{"payment.created", "payment.paid", "payment.refunded"}, s.EventTypes(id),
		"exactly one event per transition")
	require.Equal(t, http.StatusNotFound, refund("nope").Status)
	_, otherKey, _ := s.NewAccount("Outra", "outra@example.com")
	require.Equal(t, http.StatusNotFound,
		s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments/" + id + "/refund", Key: otherKey}).Status)
}
