package api_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// Phones written as Brazilians write them are PIX keys, stored as the DICT
// holds them.
func TestWithdrawalsTakePhonesAsBraziliansWriteThem(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	s.Fund(s.TestKey, 100_000)
	for _, written := range []string{"(61) 98888-0000", "+55 61 98888-0000", "+55 (61) 98888-0000", "61 98888-0000"} {
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/withdrawals", Key: s.TestKey,
			Body: map[string]any{"amount_cents": 100, "pix_key": written}})
		require.Equal(t, http.StatusCreated, r.Status, "%s: %s", written, r.Body)
		w := r.JSON(t)
		require.Equal(t, "+5561988880000", w["pix_key"], written)
		require.Equal(t, "phone", w["pix_key_type"], written)
	}
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/withdrawals", Key: s.TestKey,
		Body: map[string]any{"amount_cents": 100, "pix_key": "(20) 98888-0000"}})
	require.Equal(t, http.StatusBadRequest, r.Status)
	require.Equal(t, "pix_key_invalid", r.ErrorCode(t), "no such area code")
}
