package web_test

import (
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"payments/dispatcher/maintenance"
	"payments/store"
	"payments/web/webtest"
)

// A dispute on a payment's page, in a real browser: what it holds and
// claims, its deadline; the owner answers it there with text and a file
// (the same operation the API uses), and the page then shows the defense
// with its file to download, under review.
func TestBrowserDisputeTakesItsDefense(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	paid := s.Fund(s.TestKey, 30_000)
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + paid + "/dispute", Key: s.TestKey,
		Body: map[string]any{"reason": "coercion", "amount_cents": 12_345}})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	id := r.JSON(t)["id"].(string)
	evidence := []byte("%PDF-1.7\nboletim de ocorrência 2026/123\n")
	file := filepath.Join(t.TempDir(), "boletim.pdf")
	require.NoError(t, os.WriteFile(file, evidence, 0o600))

	ctx := newBrowserContext(t, viewports[0])
	var held, respondBy, stage string
	require.NoError(t, chromedp.Run(ctx, signIn(s, "dona@example.com"),
		chromedp.Navigate(s.URL+"/dashboard/payments/"+paid),
		chromedp.WaitVisible(`[data-testid="dispute-defense-form"]`, chromedp.ByQuery),
		chromedp.Text(`[data-testid="dispute-held"]`, &held, chromedp.ByQuery),
		chromedp.Text(`[data-testid="dispute-respond-by"]`, &respondBy, chromedp.ByQuery),
		chromedp.Text(`[data-testid="dispute-stage"]`, &stage, chromedp.ByQuery)))
	checkPage(t, ctx, "payment with a dispute to answer")
	require.Equal(t, "R$ 123,45 bloqueados", strings.ReplaceAll(held, "\u00a0", " "))
	require.Equal(t, "Valor bloqueado", stage)
	require.Regexp(t, `^\d{2}/\d{2}/\d{4} \d{2}:\d{2}$`, respondBy, "the deadline, on the account's clock")

	var after string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.SendKeys(`textarea[name="text"]`, "O pagador comprou na loja física; segue o boletim.", chromedp.ByQuery),
		chromedp.SetUploadFiles(`input[name="evidence"]`, []string{file}, chromedp.ByQuery),
		chromedp.Click(`[data-testid="dispute-defend"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`[data-testid="dispute-defense"]`, chromedp.ByQuery),
		chromedp.Text(`[data-testid="dispute-stage"]`, &stage, chromedp.ByQuery),
		chromedp.Text(`[data-testid="notice"]`, &after, chromedp.ByQuery)))
	checkPage(t, ctx, "payment with a dispute answered")
	require.Equal(t, "Em análise", stage)
	require.Contains(t, after, "Defesa enviada")
	var links int
	require.NoError(t, chromedp.Run(ctx, chromedp.Evaluate(`document.querySelectorAll('[data-testid="dispute-defense-form"]').length`, &links)))
	require.Zero(t, links, "a dispute takes one defense: no form any more")

	d := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/disputes/" + id, Key: s.TestKey}).JSON(t)
	def := d["defense"].(map[string]any)
	require.Equal(t, "O pagador comprou na loja física; segue o boletim.", def["text"])
	sum := sha256.Sum256(evidence)
	e := def["evidence"].([]any)[0].(map[string]any)
	require.Equal(t, []any{"boletim.pdf", "application/pdf", hex.EncodeToString(sum[:])}, []any{e["file_name"], e["content_type"], e["sha256"]})

	// The page's link serves the same bytes to the account's people.
	b := newBrowser(t, s)
	b.login("dona@example.com", "correct-horse-battery")
	page := b.do("GET", "/dashboard/payments/"+paid, nil, nil)
	href := page.doc.Find(`[data-testid="dispute-evidence"]`).AttrOr("href", "")
	require.Equal(t, "/dashboard/disputes/"+id+"/evidence/"+e["id"].(string), href)
	got := b.do("GET", href, nil, nil)
	require.Equal(t, http.StatusOK, got.status)
	require.Equal(t, string(evidence), got.body)
	require.Equal(t, "attachment; filename=boletim.pdf", got.header.Get("Content-Disposition"))

	// Support staff read it from the console's copy of the payment; no
	// form is offered them.
	_, err := s.Store.CreateUser(t.Context(), "help@example.com", "correct-horse-battery", store.RoleSupport, "")
	require.NoError(t, err)
	help := newBrowser(t, s)
	help.login("help@example.com", "correct-horse-battery")
	console := help.do("GET", "/dashboard/support/payments/"+paid, nil, nil)
	require.Equal(t, http.StatusOK, console.status)
	supportHref := console.doc.Find(`[data-testid="dispute-evidence"]`).AttrOr("href", "")
	require.Equal(t, "/dashboard/support/disputes/"+id+"/evidence/"+e["id"].(string), supportHref)
	require.Equal(t, string(evidence), help.do("GET", supportHref, nil, nil).body)
	require.Zero(t, console.doc.Find(`[data-testid="dispute-defense-form"]`).Length())
	require.Equal(t, http.StatusNotFound, b.do("GET", "/dashboard/disputes/"+id+"/evidence/file_nope", nil, nil).status)
}

// A dispute without a defense a day before its deadline is e-mailed to
// the account's owners, once; one answered or past its deadline is not.
func TestDisputesAwaitingADefenseAreReminded(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)
	s := webtest.New(t, webtest.WithMail(), webtest.WithClock(func() time.Time { mu.Lock(); defer mu.Unlock(); return now }))
	owner := "dona-" + strings.ToLower(s.Account.ID) + "@example.com"
	ownerFor(t, s, s.Account.ID, owner)
	dispute := func(cents int) string {
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + s.Fund(s.TestKey, int64(cents)) + "/dispute", Key: s.TestKey})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		return r.JSON(t)["id"].(string)
	}
	waiting := dispute(4_321)
	answered := dispute(1_000)
	require.Equal(t, http.StatusOK, s.Do(webtest.Request{Method: "POST", Path: "/api/v1/disputes/" + answered + "/defense", Key: s.TestKey,
		Body: map[string]any{"text": "Entregue."}}).Status)
	log := slog.New(slog.DiscardHandler)
	require.Zero(t, maintenance.RemindDisputesAwaitingDefense(t.Context(), s.Store, log), "three days ahead: not yet")

	mu.Lock()
	now = now.Add(2*24*time.Hour + time.Hour) // 23 hours before the deadline
	mu.Unlock()
	require.Equal(t, 1, maintenance.RemindDisputesAwaitingDefense(t.Context(), s.Store, log))
	require.Zero(t, maintenance.RemindDisputesAwaitingDefense(t.Context(), s.Store, log), "once")
	mail := s.Mail(owner, "Disputa de R$ 43,21 aguarda sua defesa até 05/03/2026 12:00 (America/Sao_Paulo)")
	require.Contains(t, mail.Text, "/dashboard/payments/")
	require.Contains(t, mail.Text, "#dispute-"+waiting)
	require.Contains(t, mail.Text, "motivo: fraude")
	require.Equal(t, 1, s.MailsTo(owner))
}
