package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// A static code's public page, on a laptop and a phone, to print or show
// at a counter: whom it pays and what for, its amount (or that the payer
// types it), the QR image and its copia e cola, in Portuguese and
// accessible.
func TestBrowserStaticQRCodePage(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	create := func(body map[string]any) map[string]any {
		t.Helper()
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/pix_qr_codes", Key: s.TestKey, Body: body})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		return r.JSON(t)
	}
	fixed := create(map[string]any{"amount_cents": 1_250, "description": "Café expresso"})
	open := create(map[string]any{"description": "Doações"})
	require.Equal(t, s.URL+"/pay/qr/"+fixed["id"].(string), fixed["page_url"])
	for _, vp := range viewports {
		t.Run(vp.name, func(t *testing.T) {
			ctx := newBrowserContext(t, vp)
			for _, c := range []map[string]any{fixed, open} {
				var amount, code string
				var imageWidth int
				require.NoError(t, chromedp.Run(ctx,
					chromedp.Navigate(c["page_url"].(string)),
					chromedp.WaitVisible(`[data-testid="static-qr"]`, chromedp.ByQuery),
					chromedp.Text(`[data-testid="static-qr-amount"]`, &amount, chromedp.ByQuery),
					chromedp.Value(`[data-testid="static-qr-brcode"]`, &code, chromedp.ByQuery),
					chromedp.Evaluate(`new Promise(r => { const i = document.querySelector('[data-testid="static-qr"] img');
						i.complete ? r(i.naturalWidth) : i.onload = () => r(i.naturalWidth); })`, &imageWidth,
						func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) })))
				checkPage(t, ctx, "static code "+c["id"].(string))
				require.Equal(t, c["br_code"], code)
				require.Positive(t, imageWidth, "its QR image loads")
				if c["amount_cents"] != nil {
					require.Equal(t, "R$ 12,50", strings.ReplaceAll(amount, "\u00a0", " "))
				} else {
					require.Equal(t, "Digite o valor no app do seu banco.", amount)
				}
			}
		})
	}
	require.Equal(t, http.StatusNotFound, s.DoRaw(webtest.Request{Method: "GET", Path: "/pay/qr/pqr_nope"}).Status)
}
