package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// A platform's owner, on a laptop and a phone: Subcontas makes a
// subaccount (a wrong CNPJ refused beside its field), lists it with its
// balance, and opens it: every page then says whose it is, and leads back.
// The subaccount's own owner sees that account only: no Subcontas, no way
// to the platform.
func TestBrowserPlatformOpensItsSubaccounts(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	for i, vp := range viewports {
		t.Run(vp.name, func(t *testing.T) {
			ctx := newBrowserContext(t, vp)
			name := []string{"Padaria Pão Quente", "Açougue Boi Gordo"}[i]
			row := `//tr[@data-testid="subaccount-row"][.//span[text()="` + name + `"]]`
			var problem string
			require.NoError(t, chromedp.Run(ctx, signIn(s, "dona@example.com"),
				chromedp.Navigate(s.URL+"/dashboard/subaccounts"),
				chromedp.WaitVisible(`[data-testid="subaccount-form"]`, chromedp.ByQuery)))
			checkPage(t, ctx, "subaccounts")
			require.NoError(t, chromedp.Run(ctx,
				chromedp.SendKeys(`#name`, name, chromedp.ByQuery),
				chromedp.SendKeys(`#document`, "12.ABC.345/01DE-36", chromedp.ByQuery),
				chromedp.SendKeys(`#email`, "loja@example.com", chromedp.ByQuery),
				chromedp.SendKeys(`#pix_key`, "loja@example.com", chromedp.ByQuery),
				clickAndWait(`[data-testid="submit-subaccount"]`, `[data-testid="error-document"]`),
				chromedp.Text(`[data-testid="error-document"]`, &problem, chromedp.ByQuery)))
			require.Equal(t, "Informe um CPF ou CNPJ válido.", problem)
			checkPage(t, ctx, "subaccount refused")
			var available, banner string
			require.NoError(t, chromedp.Run(ctx,
				chromedp.SetValue(`#document`, "12.ABC.345/01DE-35", chromedp.ByQuery),
				// The new row (the phone's run lists the laptop's too).
				chromedp.Click(`[data-testid="submit-subaccount"]`, chromedp.ByQuery),
				chromedp.WaitVisible(row, chromedp.BySearch),
				chromedp.Text(row+`//*[@data-testid="subaccount-available"]`, &available, chromedp.BySearch)))
			require.Equal(t, "R$ 0,00", strings.ReplaceAll(available, "\u00a0", " "))
			checkPage(t, ctx, "subaccounts listed")
			require.NoError(t, chromedp.Run(ctx,
				chromedp.Click(row+`//*[@data-testid="open-subaccount"]`, chromedp.BySearch),
				chromedp.WaitVisible(`[data-testid="subaccount-banner"]`, chromedp.ByQuery),
				chromedp.Text(`[data-testid="subaccount-banner"]`, &banner, chromedp.ByQuery)))
			require.Contains(t, banner, "Você está na subconta")
			checkPage(t, ctx, "inside a subaccount")
			var subaccounts int
			require.NoError(t, chromedp.Run(ctx,
				chromedp.Evaluate(`document.querySelectorAll('a[href="/dashboard/subaccounts"]').length`, &subaccounts),
				chromedp.Click(`[data-testid="back-to-platform"]`, chromedp.ByQuery),
				chromedp.WaitNotPresent(`[data-testid="subaccount-banner"]`, chromedp.ByQuery),
				chromedp.Navigate(s.URL+"/dashboard/subaccounts"),
				chromedp.WaitVisible(`[data-testid="subaccount-form"]`, chromedp.ByQuery)))
			require.Zero(t, subaccounts, "a subaccount has none of its own")
		})
	}

	// Its own owner sees that account only.
	list := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/subaccounts", Key: s.TestKey}).JSON(t)["data"].([]any)
	require.Len(t, list, 2)
	seller := list[0].(map[string]any)["id"].(string)
	ownerFor(t, s, seller, "vendedor@example.com")
	ctx := newBrowserContext(t, viewports[1])
	var banner string
	var back, subaccounts int
	require.NoError(t, chromedp.Run(ctx, signIn(s, "vendedor@example.com"),
		chromedp.WaitVisible(`[data-testid="subaccount-banner"]`, chromedp.ByQuery),
		chromedp.Text(`[data-testid="subaccount-banner"]`, &banner, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll('[data-testid="back-to-platform"]').length`, &back),
		chromedp.Evaluate(`document.querySelectorAll('a[href="/dashboard/subaccounts"]').length`, &subaccounts)))
	require.Contains(t, banner, list[0].(map[string]any)["name"].(string))
	require.Equal(t, []int{0, 0}, []int{back, subaccounts})
	checkPage(t, ctx, "a seller's own dashboard")
	b := newBrowser(t, s)
	b.login("vendedor@example.com", "correct-horse-battery")
	r := b.do("POST", "/dashboard/account", url.Values{"account": {s.Account.ID}, "_csrf": {b.csrf("/dashboard")}}, nil)
	require.Equal(t, http.StatusNotFound, r.status, "the platform is not the seller's")
	r = b.do("GET", "/dashboard/subaccounts", nil, nil)
	require.Equal(t, http.StatusOK, r.status)
	require.Zero(t, r.doc.Find(`[data-testid="subaccount-row"]`).Length(), "a seller has no subaccounts to see")
}
