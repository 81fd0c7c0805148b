package web_test

import (
	"context"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	cdpwebauthn "github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// An owner makes a passkey in Chromium (the DevTools virtual
// authenticator), then signs in with it and no password; with it enrolled,
// a password sign-in asks for it as the second step, and a step-up takes it.
func TestBrowserPasskeySignInAndSecondFactor(t *testing.T) {
	t.Parallel()
	s := webtest.New(t, webtest.WithLocalhost())
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	ctx := newBrowserContext(t, viewports[0])
	var authenticator cdpwebauthn.AuthenticatorID
	require.NoError(t, chromedp.Run(ctx,
		cdpwebauthn.Enable(),
		chromedp.ActionFunc(func(ctx context.Context) error {
			var err error
			authenticator, err = cdpwebauthn.AddVirtualAuthenticator(&cdpwebauthn.VirtualAuthenticatorOptions{
				Protocol: cdpwebauthn.AuthenticatorProtocolCtap2, Transport: cdpwebauthn.AuthenticatorTransportInternal,
				HasResidentKey: true, HasUserVerification: true, IsUserVerified: true, AutomaticPresenceSimulation: true,
			}).Do(ctx)
			return err
		}),
		signIn(s, "dona@example.com"),
		chromedp.Navigate(s.URL+"/dashboard/security"),
		chromedp.WaitVisible(`[data-testid="add-passkey"]`, chromedp.ByQuery),
		chromedp.SendKeys(`#passkey-name`, "Notebook", chromedp.ByQuery),
		clickAndWait(`[data-testid="add-passkey"]`, `[data-testid="passkey"]`),
	))
	var name string
	require.NoError(t, chromedp.Run(ctx, chromedp.Text(`[data-testid="passkey"]`, &name, chromedp.ByQuery)))
	require.Contains(t, name, "Notebook")
	creds, err := cdpwebauthn.GetCredentials(authenticator).Do(cdpContext(t, ctx))
	require.NoError(t, err)
	require.Len(t, creds, 1)
	require.True(t, creds[0].IsResidentCredential)

	// Signed out, the passkey signs in without a password.
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Click(`[data-testid="sign-out"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`[data-testid="passkey-sign-in"]`, chromedp.ByQuery),
		clickAndWait(`[data-testid="passkey-sign-in"]`, `[data-testid="sign-out"]`),
	))
	// A step-up takes it.
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Navigate(s.URL+"/dashboard/verify?next=/dashboard/balance"),
		clickAndWait(`[data-testid="use-passkey"]`, `[data-testid="withdraw-form"]`),
	))
	// A password sign-in now asks for the passkey as its second step.
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Click(`[data-testid="sign-out"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#email`, chromedp.ByQuery),
		chromedp.SendKeys(`#email`, "dona@example.com", chromedp.ByQuery),
		chromedp.SendKeys(`#password`, "correct-horse-battery", chromedp.ByQuery),
		chromedp.Submit(`[data-testid="login-form"]`, chromedp.ByQuery),
		clickAndWait(`[data-testid="use-passkey"]`, `[data-testid="sign-out"]`),
	))
	var methods []string
	require.NoError(t, s.DB.NewRaw(`SELECT action || ' ' || coalesce(changes->'method'->>1, '') FROM audit_log
		WHERE action IN ('user.passkey_added', 'user.second_factor_verified') ORDER BY id`).Scan(context.Background(), &methods))
	require.Equal(t, []string{"user.passkey_added ", "user.second_factor_verified passkey", "user.second_factor_verified passkey",
		"user.second_factor_verified passkey"}, methods)
}

// cdpContext is ctx as chromedp's actions run it (its executor).
func cdpContext(t *testing.T, ctx context.Context) context.Context {
	t.Helper()
	c := chromedp.FromContext(ctx)
	require.NotNil(t, c)
	return cdp.WithExecutor(ctx, c.Target)
}
