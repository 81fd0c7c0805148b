package web_test

import (
	"context"
	"encoding/csv"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"payments/store"
	"payments/web/webtest"
)

// The audit page lists who did what through which door, filters by
// person, action and object, exports CSV, and each object's page shows
// its own history. The table refuses UPDATE, DELETE and TRUNCATE.
func TestAuditPageAndAppendOnlyTrail(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	paid := s.Fund(s.TestKey, 5_000)
	b := newBrowser(t, s)
	b.login("dona@example.com", "correct-horse-battery")
	token := b.csrf("/dashboard/webhooks/new")
	r := b.do("POST", "/dashboard/webhooks", url.Values{"_csrf": {token}, "url": {"https://example.com/hook"}, "events": {"payment.paid"}}, nil)
	require.Equal(t, http.StatusSeeOther, r.status, r.body)
	webhookPath := r.header.Get("Location")
	require.Equal(t, http.StatusSeeOther, b.confirm("/dashboard/payments/"+paid+"/refund", url.Values{"_csrf": {token}, "amount": {"10,00"}}, nil).status)

	page := b.do("GET", "/dashboard/audit", nil, nil)
	require.Equal(t, http.StatusOK, page.status)
	var actions, actors, doors []string
	page.doc.Find(`[data-testid="audit-row"]`).Each(func(_ int, row *goquery.Selection) {
		actions = append(actions, row.AttrOr("data-action", ""))
		actors = append(actors, row.Find(`[data-testid="audit-actor"]`).Text())
		doors = append(doors, strings.Fields(row.Find(`[data-testid="audit-door"]`).Text())[0])
	})
	require.Equal(t, []string{"refund.created", "webhook.created", "user.signed_in", "payment.paid", "payment.created"}, actions)
	require.Equal(t, []string{"dona@example.com", "dona@example.com", "dona@example.com", "Chave Teste (" + keyID(t, s, s.TestKey) + ")",
		"Chave Teste (" + keyID(t, s, s.TestKey) + ")"}, actors)
	require.Equal(t, []string{"Painel", "Painel", "Painel", "API", "API"}, doors)

	filtered := b.do("GET", "/dashboard/audit?action=refund.created", nil, nil)
	require.Equal(t, 1, filtered.doc.Find(`[data-testid="audit-row"]`).Length())
	byObject := b.do("GET", "/dashboard/audit?object="+paid, nil, nil)
	require.Equal(t, 2, byObject.doc.Find(`[data-testid="audit-row"]`).Length(), "the payment's creation and payment")
	require.Equal(t, 2, b.do("GET", "/dashboard/payments/"+paid, nil, nil).doc.Find(`[data-testid="history"] [data-testid="audit-row"]`).Length())
	require.Equal(t, 1, b.do("GET", webhookPath, nil, nil).doc.Find(`[data-testid="history"] [data-testid="audit-row"]`).Length())

	export := b.do("GET", "/dashboard/audit.csv?action=webhook.created", nil, nil)
	require.Equal(t, http.StatusOK, export.status)
	require.Equal(t, "text/csv; charset=utf-8", export.header.Get("Content-Type"))
	records, err := csv.NewReader(strings.NewReader(export.body)).ReadAll()
	require.NoError(t, err)
	require.Len(t, records, 2)
	require.Equal(t, []string{"id", "created_at", "livemode", "action", "object_id", "actor", "actor_name", "door", "ip", "user_agent", "request_id", "changes"}, records[0])
	require.Equal(t, "webhook.created", records[1][3])
	require.Equal(t, "dashboard", records[1][7])
	require.Equal(t, "127.0.0.1", records[1][8])
	require.Regexp(t, `^req_`, records[1][10])

	for _, sql := range []string{"UPDATE audit_log SET actor = 'someone'", "DELETE FROM audit_log", "TRUNCATE audit_log"} {
		_, err := s.DB.NewRaw(sql).Exec(context.Background())
		require.ErrorContains(t, err, "permission denied for table audit_log", sql) // the service's role (storetest.ServiceRole)
	}
}

// The trail says what changed in words, in the person's language, and a
// live payment the PSP confirmed never reads "simulação" (a test-mode one
// paid by a key does).
func TestAuditTrailInWords(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	paid := s.Fund(s.TestKey, 5_000)
	ctx := store.WithActor(context.Background(), store.ActorPSP)
	require.NoError(t, s.Store.Audit(ctx, store.AuditRecord{Scope: store.Scope{AccountID: s.Account.ID, Livemode: true}, Action: "payment.paid",
		ObjectID: "01a223e1-9544-7878-a5c2-74e4f91b5956", Changes: store.Changes{"status": {"pending", "paid"}, "amount_paid_cents": {nil, 12_345}}}))
	b := newBrowser(t, s)
	b.login("dona@example.com", "correct-horse-battery")
	rows := b.do("GET", "/dashboard/audit?action=payment.paid", nil, nil).doc.Find(`[data-testid="audit-row"]`)
	require.Equal(t, 2, rows.Length())
	live, test := rows.Eq(0), rows.Eq(1)
	require.Equal(t, "Cobrança paga", live.Find(`[data-testid="audit-action"]`).Text(), "the PSP's, live: no simulation")
	require.Equal(t, "Situação: Pendente → Pago · Valor pago: R$ 123,45", strings.Join(strings.Fields(live.Find(`[data-testid="audit-changes"]`).Text()), " "))
	require.Equal(t, "Cobrança paga (simulação)", test.Find(`[data-testid="audit-action"]`).Text(), "a key's, in test mode")
	require.NotContains(t, test.Find(`[data-testid="audit-changes"]`).Text(), "{", "no JSON: "+paid)
}
