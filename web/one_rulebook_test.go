package web_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/internal/testbin"
	"payments/store"
	"payments/store/storetest"
	"payments/web/webtest"
)

// A refund asked at the dashboard, at the API and by an admin command is
// one operation: each settles the same way (test mode: succeeded at once,
// the payment's amount_refunded_cents counts it) and each records who
// asked on its refund.succeeded event, which only the operation sets; a
// door that went around it would leave "system" there.
func TestEveryDoorRefundsThroughTheSameOperation(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	viaAPI, viaDashboard, viaAdmin := s.Fund(s.TestKey, 10_000), s.Fund(s.TestKey, 10_000), s.Fund(s.TestKey, 10_000)

	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments/" + viaAPI + "/refund", Key: s.TestKey,
		Body: map[string]any{"amount_cents": 1_500}})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)

	b := newBrowser(t, s)
	b.login("dona@example.com", "correct-horse-battery")
	token := b.csrf("/dashboard/payments/" + viaDashboard)
	done := b.confirm("/dashboard/payments/"+viaDashboard+"/refund", url.Values{"_csrf": {token}, "amount": {"15,00"}}, nil)
	require.Equal(t, http.StatusSeeOther, done.status, "%s", done.body)

	cmd := exec.Command(testbin.Path(t, "PAYMENTS_BIN", "./cmd/payments"), "refunds", "create",
		"--account", s.Account.ID, "--payment", viaAdmin, "--amount-cents", "1500")
	cmd.Env = []string{"DATABASE_URL=" + s.DBURL, "SECRET_KEY=" + hex.EncodeToString(s.SecretKey)}
	out, err := cmd.Output()
	require.NoError(t, err, "%s", out)
	var printed struct {
		Refund  map[string]any `json:"refund"`
		Payment map[string]any `json:"payment"`
	}
	require.NoError(t, json.Unmarshal(out, &printed), "%s", out)
	require.Equal(t, "succeeded", printed.Refund["status"])
	require.Equal(t, float64(1_500), printed.Payment["amount_refunded_cents"])

	user, err := s.Store.UserByEmail(context.Background(), "dona@example.com")
	require.NoError(t, err)
	key, err := s.Store.APIKeyBySecret(context.Background(), s.TestKey)
	require.NoError(t, err)
	for payment, who := range map[string]store.Actor{
		viaAPI:       store.ActorAPIKey(key.ID),
		viaDashboard: store.ActorUser(user.ID),
		viaAdmin:     store.ActorAdmin("refunds create"),
	} {
		p := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + payment, Key: s.TestKey}).JSON(t)
		require.Equal(t, "paid", p["status"])
		require.Equal(t, float64(1_500), p["amount_refunded_cents"], "every door: R$ 15,00 back, settled at once in test mode")
		var refundID string
		require.NoError(t, s.DB.NewRaw("SELECT id FROM refunds WHERE payment_id = ?", payment).Scan(context.Background(), &refundID))
		trail, err := storetest.AuditTrail(context.Background(), s.DB, s.Account.ID, refundID)
		require.NoError(t, err)
		require.Equal(t, []storetest.AuditEntry{{Action: "refund.created", ObjectID: refundID, Actor: who.ID}}, trail, payment)
	}
}
