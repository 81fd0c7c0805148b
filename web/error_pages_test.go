package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// Every error a person's browser can reach is a page in their language,
// never the API's JSON: a page that does not exist (404), a form too large
// to take (413), an address too long to read (431, a 5,000-character
// search; its headers unread, the page speaks Portuguese and English).
func TestErrorPagesAreHTMLInThePersonsLanguage(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	browser := func(lang string) map[string]string {
		return map[string]string{"Accept": "text/html,application/xhtml+xml", "Accept-Language": lang}
	}
	for _, c := range []struct {
		name    string
		req     webtest.Request
		status  int
		lang    string
		text    []string
		english bool
	}{
		{"404", webtest.Request{Method: "GET", Path: "/pagina-que-nao-existe", Headers: browser("pt-BR,pt;q=0.9")},
			http.StatusNotFound, "pt-BR", []string{"Página não encontrada"}, false},
		{"404 in English", webtest.Request{Method: "GET", Path: "/pagina-que-nao-existe", Headers: browser("en-US,en;q=0.9")},
			http.StatusNotFound, "en", []string{"Page not found"}, false},
		{"413", webtest.Request{Method: "POST", Path: "/login", Body: "email=" + strings.Repeat("a", 2<<20),
			Headers: mergeHeaders(browser("pt-BR"), map[string]string{"Content-Type": "application/x-www-form-urlencoded"})},
			http.StatusRequestEntityTooLarge, "pt-BR", []string{"Envio grande demais", "O envio é grande demais."}, false},
		{"431", webtest.Request{Method: "GET", Path: "/dashboard/support?q=" + strings.Repeat("x", 5_000), Headers: browser("pt-BR")},
			http.StatusRequestHeaderFieldsTooLarge, "pt-BR", []string{"Endereço ou cabeçalhos grandes demais"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := s.DoRaw(c.req)
			require.Equal(t, c.status, r.Status, "%s", r.Body)
			require.Equal(t, "text/html; charset=utf-8", r.Header.Get("Content-Type"), "%s", r.Body)
			doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(r.Body)))
			require.NoError(t, err)
			require.Equal(t, c.lang, doc.Find("html").AttrOr("lang", ""))
			page := doc.Find(`[data-testid="error-page"]`)
			require.Equal(t, 1, page.Length(), "%s", r.Body)
			for _, want := range c.text {
				require.Contains(t, page.Text(), want)
			}
			require.Equal(t, c.english, doc.Find(`[data-testid="error-page"] [lang="en"]`).Length() == 1, "the English beside the Portuguese")
			require.NotContains(t, string(r.Body), `"error":`)
		})
	}
}

func mergeHeaders(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
