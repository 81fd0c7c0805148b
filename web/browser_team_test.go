package web_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/require"

	"payments/pix"
	"payments/store"
	"payments/web/webtest"
)

// In Chromium, in Portuguese: a business signs up, verifies its e-mail
// from the mail the catcher caught, invites a developer, who accepts from
// their mail, creates a webhook, sees no refund button and gets 403 on a
// forged refund; the owner enrolls an authenticator app, and a withdrawal
// five minutes on asks for a code and moves nothing without it; a password
// reset ends the developer's other session; the audit page names each
// step's person and door.
func TestBrowserSignUpInviteAndRoles(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	s := webtest.New(t, webtest.WithMail(), webtest.WithClock(clock))
	tag := strings.ToLower(pix.RandomBase62(8))
	ownerEmail, devEmail := "dona-"+tag+"@example.com", "dev-"+tag+"@example.com"
	recv := webtest.NewReceiver(t, nil)

	owner := newBrowserContext(t, viewports[1])
	require.NoError(t, chromedp.Run(owner,
		chromedp.Navigate(s.URL+"/login"),
		clickAndWait(`[data-testid="signup-link"]`, `[data-testid="signup-form"]`),
		chromedp.SendKeys(`#business_name`, "Padaria Pão Quente", chromedp.ByQuery),
		chromedp.SendKeys(`#document`, "11.222.333/0001-81", chromedp.ByQuery),
		chromedp.SendKeys(`#name`, "Dona Maria", chromedp.ByQuery),
		chromedp.SendKeys(`#email`, ownerEmail, chromedp.ByQuery),
		chromedp.SendKeys(`#password`, "pão de queijo quentinho", chromedp.ByQuery),
		clickAndWait(`[data-testid="signup-submit"]`, `[data-testid="message-text"]`),
	))
	checkPage(t, owner, "signed up: the link is in the mail")
	verify := s.Mail(ownerEmail, "Confirme seu e-mail").Link(t, s.URL+"/verify-email?token=")
	var done string
	require.NoError(t, chromedp.Run(owner, chromedp.Navigate(verify),
		chromedp.WaitVisible(`[data-testid="sign-out"]`, chromedp.ByQuery),
		chromedp.Text(`[data-testid="notice"]`, &done, chromedp.ByQuery)))
	require.Equal(t, "E-mail confirmado. Sua conta está pronta e já funciona em modo de teste.", done, "the link signed her in; the notice is where she lands")
	checkPage(t, owner, "confirmed and signed in")

	require.NoError(t, chromedp.Run(owner,
		chromedp.Navigate(s.URL+"/dashboard/team"),
		chromedp.WaitVisible(`[data-testid="invite-form"]`, chromedp.ByQuery),
		chromedp.SendKeys(`#invite-email`, devEmail, chromedp.ByQuery),
		chromedp.SetValue(`#invite-role`, "developer", chromedp.ByQuery),
		clickAndWait(`[data-testid="invite-submit"]`, `[data-testid="invitation"]`),
	))
	checkPage(t, owner, "team with an invitation")

	dev := newBrowserContext(t, viewports[0])
	accept := s.Mail(devEmail, "Convite para Padaria Pão Quente").Link(t, s.URL+"/invitations/accept?token=")
	require.NoError(t, chromedp.Run(dev,
		chromedp.Navigate(accept),
		chromedp.WaitVisible(`[data-testid="accept-form"]`, chromedp.ByQuery),
		chromedp.SendKeys(`#name`, "Dev", chromedp.ByQuery),
		chromedp.SendKeys(`#password`, "um teclado mecânico barulhento", chromedp.ByQuery),
		clickAndWait(`[data-testid="accept-submit"]`, `[data-testid="sign-out"]`),
		chromedp.Navigate(s.URL+"/dashboard/webhooks/new"),
		chromedp.WaitVisible(`[data-testid="webhook-form"]`, chromedp.ByQuery),
		chromedp.SendKeys(`#name`, "Integração", chromedp.ByQuery),
		chromedp.SendKeys(`#url`, recv.URL+"/ganchos", chromedp.ByQuery),
		clickAndWait(`[data-testid="submit-webhook"]`, `[data-testid="new-secret"]`),
	))

	user, err := s.Store.UserByEmail(context.Background(), ownerEmail)
	require.NoError(t, err)
	_, key, err := s.Store.CreateAPIKey(context.Background(), *user.AccountID, false, store.NewAPIKey{Name: "loja"})
	require.NoError(t, err)
	paid := s.Fund(key, 2_000)
	var refundForms int
	var forged float64
	require.NoError(t, chromedp.Run(dev,
		chromedp.Navigate(s.URL+"/dashboard/payments/"+paid),
		chromedp.WaitVisible(`[data-testid="timeline"]`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll('[data-testid="refund-form"]').length`, &refundForms),
		chromedp.Evaluate(`fetch('/dashboard/payments/`+paid+`/refund', {method: 'POST', headers: {'Content-Type': 'application/x-www-form-urlencoded'},
			body: new URLSearchParams({_csrf: document.querySelector('input[name="_csrf"]').value, amount: '20,00', confirmed: '1'})}).then(r => r.status)`,
			&forged, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }),
	))
	require.Zero(t, refundForms, "no refund button for a developer")
	require.Equal(t, float64(403), forged)

	// The owner turns on an authenticator app.
	var secret string
	var recovery int
	require.NoError(t, chromedp.Run(owner,
		chromedp.Navigate(s.URL+"/dashboard/security"),
		clickAndWait(`[data-testid="totp-start"]`, `[data-testid="totp-secret"]`),
		chromedp.Text(`[data-testid="totp-secret"]`, &secret, chromedp.ByQuery),
	))
	code := func() string {
		c, err := totp.GenerateCode(secret, clock())
		require.NoError(t, err)
		return c
	}
	require.NoError(t, chromedp.Run(owner,
		chromedp.SendKeys(`#totp-code`, code(), chromedp.ByQuery),
		clickAndWait(`[data-testid="totp-submit"]`, `[data-testid="recovery-codes"]`),
		chromedp.Evaluate(`document.querySelectorAll('[data-testid="recovery-code"]').length`, &recovery),
	))
	require.Equal(t, 10, recovery)

	// Six minutes on, a withdrawal asks for a code and moves nothing first.
	advance(6 * time.Minute)
	withdrawals := func() (n int) {
		require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM withdrawals").Scan(context.Background(), &n))
		return n
	}
	require.NoError(t, chromedp.Run(owner,
		chromedp.Navigate(s.URL+"/dashboard/balance"),
		chromedp.SendKeys(`#amount`, "5,00", chromedp.ByQuery),
		chromedp.SendKeys(`#pix_key`, "maria@example.com", chromedp.ByQuery),
		clickAndWait(`[data-testid="withdraw-submit"]`, `[data-testid="verify-form"]`),
	))
	require.Zero(t, withdrawals(), "refused without the second factor")
	checkPage(t, owner, "step-up")
	var amount, pixKey string
	require.NoError(t, chromedp.Run(owner,
		chromedp.SendKeys(`#code`, code(), chromedp.ByQuery),
		clickAndWait(`[data-testid="verify-submit"]`, `[data-testid="withdraw-form"]`),
		chromedp.Value(`#amount`, &amount, chromedp.ByQuery),
		chromedp.Value(`#pix_key`, &pixKey, chromedp.ByQuery),
	))
	require.Equal(t, [2]string{"5,00", "maria@example.com"}, [2]string{amount, pixKey}, "back at the form as she filled it")
	require.NoError(t, chromedp.Run(owner,
		clickAndWait(`[data-testid="withdraw-submit"]`, `[data-testid="confirmation"]`),
		clickAndWait(`[data-testid="confirm"]`, `[data-testid="withdrawals"]`),
	))
	require.Equal(t, 1, withdrawals())

	// A password reset, asked from another browser, ends the developer's session.
	reset := newBrowserContext(t, viewports[1])
	require.NoError(t, chromedp.Run(reset,
		chromedp.Navigate(s.URL+"/login"),
		clickAndWait(`[data-testid="forgot-link"]`, `[data-testid="forgot-form"]`),
		chromedp.SendKeys(`#email`, devEmail, chromedp.ByQuery),
		clickAndWait(`[data-testid="forgot-submit"]`, `[data-testid="form-done"]`),
	))
	link := s.Mail(devEmail, "Redefinir sua senha").Link(t, s.URL+"/password/reset?token=")
	require.NoError(t, chromedp.Run(reset,
		chromedp.Navigate(link),
		chromedp.SendKeys(`#password`, "outra frase bem comprida agora", chromedp.ByQuery),
		clickAndWait(`[data-testid="reset-submit"]`, `[data-testid="sign-out"]`),
	))
	require.NoError(t, chromedp.Run(dev,
		chromedp.Navigate(s.URL+"/dashboard/payments"),
		chromedp.WaitVisible(`[data-testid="login-form"]`, chromedp.ByQuery),
	))

	var actions []string
	require.NoError(t, chromedp.Run(owner,
		chromedp.Navigate(s.URL+"/dashboard/audit"),
		chromedp.WaitVisible(`[data-testid="audit-table"]`, chromedp.ByQuery),
		chromedp.Evaluate(`[...document.querySelectorAll('[data-testid="audit-row"]')].map(r =>
			r.dataset.action + ' · ' + r.querySelector('[data-testid="audit-actor"]').textContent.trim() + ' · ' +
			r.querySelector('[data-testid="audit-door"]').textContent.trim().split(' ')[0])`, &actions),
	))
	checkPage(t, owner, "audit trail")
	for _, want := range []string{
		"account.created · " + ownerEmail + " · Painel",
		"user.email_verified · " + ownerEmail + " · Painel",
		"member.invited · " + ownerEmail + " · Painel",
		"member.joined · " + devEmail + " · Painel",
		"webhook.created · " + devEmail + " · Painel",
		"payment.created · Chave loja",
		"user.two_factor_enabled · " + ownerEmail + " · Painel",
		"user.second_factor_verified · " + ownerEmail + " · Painel",
		"withdrawal.created · " + ownerEmail + " · Painel",
		"user.password_reset · " + devEmail + " · Painel",
	} {
		found := false
		for _, a := range actions {
			found = found || strings.HasPrefix(a, want)
		}
		require.True(t, found, "%q in %q", want, actions)
	}
}
