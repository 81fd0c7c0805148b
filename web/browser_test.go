package web_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/network"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

const chromiumPath = "/usr/bin/chromium"

// viewport is a screen the flows are tried on.
type viewport struct {
	name          string
	width, height int64
	mobile        bool
}

// viewports: a laptop, and a phone 390 px wide.
var viewports = []viewport{{"desktop", 1280, 900, false}, {"phone", 390, 844, true}}

// newBrowserContext starts headless Debian Chromium for one test, on vp's
// screen, with the clipboard readable (copy buttons are checked by reading it).
func newBrowserContext(t *testing.T, vp viewport) context.Context {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("%s is missing: `make test` installs it (apt-get install chromium)", chromiumPath)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("lang", "pt-BR"),
		chromedp.WindowSize(int(vp.width), int(vp.height)),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 150*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	emulate := []chromedp.EmulateViewportOption{}
	if vp.mobile {
		emulate = append(emulate, chromedp.EmulateMobile)
	}
	require.NoError(t, chromedp.Run(ctx,
		cdpbrowser.GrantPermissions([]cdpbrowser.PermissionType{cdpbrowser.PermissionTypeClipboardReadWrite, cdpbrowser.PermissionTypeClipboardSanitizedWrite}),
		chromedp.EmulateViewport(vp.width, vp.height, emulate...),
		// A Brazilian's browser (headless Chromium ignores --lang).
		network.SetExtraHTTPHeaders(network.Headers{"Accept-Language": "pt-BR,pt;q=0.9,en;q=0.5"}),
		// Every Content-Security-Policy violation of every page is kept for checkCSP.
		chromedp.ActionFunc(func(ctx context.Context) error {
			_, err := cdppage.AddScriptToEvaluateOnNewDocument(`window.__csp = [];
				document.addEventListener('securitypolicyviolation', e =>
					window.__csp.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + e.sourceFile + ':' + e.lineNumber));`).Do(ctx)
			return err
		}),
	))
	return ctx
}

// checkCSP fails if the page broke its Content-Security-Policy: something
// inline or foreign it would have needed was blocked.
func checkCSP(t *testing.T, ctx context.Context, pageName string) {
	t.Helper()
	var violations []string
	require.NoError(t, chromedp.Run(ctx, chromedp.Evaluate(`window.__csp || []`, &violations)), pageName)
	require.Empty(t, violations, "Content-Security-Policy violations on %s", pageName)
}

func signIn(s *webtest.Server, email string) chromedp.Tasks {
	return chromedp.Tasks{
		chromedp.Navigate(s.URL + "/login"),
		chromedp.WaitVisible(`#email`, chromedp.ByQuery),
		chromedp.SendKeys(`#email`, email, chromedp.ByQuery),
		chromedp.SendKeys(`#password`, "correct-horse-battery", chromedp.ByQuery),
		chromedp.Submit(`[data-testid="login-form"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`[data-testid="sign-out"]`, chromedp.ByQuery),
	}
}

// clickAndWait clicks sel (ByQuery) and waits for next to be visible.
func clickAndWait(sel, next string) chromedp.Tasks {
	return chromedp.Tasks{chromedp.Click(sel, chromedp.ByQuery), chromedp.WaitVisible(next, chromedp.ByQuery)}
}

var (
	axeOnce   sync.Once
	axeSource string
	axeErr    error
)

// axe is axe-core's source, from the pinned npm package `make test` installs.
func axe(t *testing.T) string {
	t.Helper()
	axeOnce.Do(func() {
		var b []byte
		b, axeErr = os.ReadFile(filepath.Join("..", "node_modules", "axe-core", "axe.min.js"))
		axeSource = string(b)
	})
	if axeErr != nil {
		t.Fatalf("axe-core is not installed: run the suite with `make test`, which installs package.json's tools (%v)", axeErr)
	}
	return axeSource
}

type axeViolation struct {
	ID     string   `json:"id"`
	Impact string   `json:"impact"`
	Help   string   `json:"help"`
	Nodes  []string `json:"nodes"`
}

// checkAccessible runs axe-core in the page and fails on any serious or
// critical violation.
func checkAccessible(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	var found string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Evaluate(axe(t), nil),
		chromedp.Evaluate(`axe.run(document, {resultTypes: ['violations']}).then(r => JSON.stringify(r.violations
			.filter(v => v.impact === 'serious' || v.impact === 'critical')
			.map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => n.target.join(' '))}))))`,
			&found, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }),
	), page)
	var violations []axeViolation
	require.NoError(t, json.Unmarshal([]byte(found), &violations))
	require.Empty(t, violations, "axe-core on %s", page)
}

// englishWords are words of the dashboard's former English that a
// Portuguese page must not show; rawCode matches an event type or a
// code (payment.paid, dispute_hold) shown as a label.
var (
	englishWords = regexp.MustCompile(`(?i)\b(the|and|payments?|balance|settings|sign (in|out)|create|send|delete|refunds?|withdraw(al|als)?|pending|paid|failed|succeeded|status|amount|created|events?|deliveries|delivery|attempts?|request|response|enabled|disabled|copy|save|cancel|search|next|older|newer|available|fee|order|customer|description|expires|edit|rotate|secret|name|version|test mode|live|keys?|health|none|yes|back|simulate|filter|clear|from|to|when|type|source|activity)\b`)
	rawCode      = regexp.MustCompile(`\b[a-z]+(_[a-z]+)+\b|\b[a-z]+\.[a-z_]+\b`)
	addressLike  = regexp.MustCompile(`\S+@\S+|https?://\S+|\S+\.(com|br)\S*`)
)

// checkPortuguese fails if the page's visible text, outside what is data
// or protocol (ids, URLs, payloads, typed values: code, pre, inputs,
// monospace, and what people wrote, marked translate="no"), has an English
// word or a raw code.
func checkPortuguese(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	var text, lang string
	require.NoError(t, chromedp.Run(ctx,
		chromedp.Evaluate(`(() => { const b = document.body.cloneNode(true);
			b.querySelectorAll('code, pre, input, textarea, option[lang], script, style, .font-mono, [data-testid="user-email"], [translate="no"], .sr-only').forEach(e => e.remove());
			return b.innerText; })()`, &text),
		chromedp.Evaluate(`document.documentElement.lang`, &lang),
	), page)
	require.Equal(t, "pt-BR", lang, page)
	text = addressLike.ReplaceAllString(text, " ")
	require.Empty(t, englishWords.FindAllString(text, -1), "English on %s:\n%s", page, text)
	require.Empty(t, rawCode.FindAllString(text, -1), "raw codes on %s:\n%s", page, text)
}

// checkNoSideScroll fails if the page is wider than the screen: on a
// phone nothing may need a sideways scroll to be read or reached. Tables
// scroll inside their own box (overflow-x-auto), which is allowed; the
// innermost elements that stick out, outside such a box, are named.
func checkNoSideScroll(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	var out struct {
		Over     int      `json:"over"`
		Culprits []string `json:"culprits"`
	}
	require.NoError(t, chromedp.Run(ctx, chromedp.Evaluate(`(() => {
		const w = document.documentElement.clientWidth;
		const over = document.documentElement.scrollWidth - w;
		// What sticks out: an element past the right edge, or one whose own
		// content (a long word) overflows it; the innermost of them.
		const sticksOut = e => getComputedStyle(e).overflowX === 'visible' &&
			(e.getBoundingClientRect().right > w + 1 || e.scrollWidth > e.clientWidth + 1) && !e.closest('.overflow-x-auto');
		const culprits = over <= 0 ? [] : [...document.body.querySelectorAll('*')]
			.filter(e => sticksOut(e) && ![...e.children].some(sticksOut))
			.slice(0, 8).map(e => e.tagName.toLowerCase() + (e.dataset.testid ? '[' + e.dataset.testid + ']' : '') + '.' + e.className + ' ' + JSON.stringify(e.innerText.slice(0, 40)));
		return {over, culprits};
	})()`, &out)), page)
	require.LessOrEqual(t, out.Over, 0, "%s scrolls sideways by %d px: %v", page, out.Over, out.Culprits)
}

// checkPage is every check, for a page a merchant or payer reads.
func checkPage(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	checkNoSideScroll(t, ctx, page)
	checkCSP(t, ctx, page)
	checkPortuguese(t, ctx, page)
	checkAccessible(t, ctx, page)
	checkCSP(t, ctx, page+" (after axe-core)")
}

// clipboard reads what a copy button put there.
func clipboard(t *testing.T, ctx context.Context) string {
	t.Helper()
	var text string
	require.NoError(t, chromedp.Run(ctx, chromedp.Evaluate(`navigator.clipboard.readText()`, &text,
		func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) })))
	return strings.TrimSpace(text)
}
