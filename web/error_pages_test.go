package web_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// Every error a person's browser can reach is a page in their language,
// never the API's JSON: a page that does not exist (404), a form too large
// to take (413, below), an address too long to read (431, a 5,000-character
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

// A form too large to take (413): its Content-Length alone is refused,
// before the body is read, so the request is written by hand (a client
// still writing a large body may see the connection close first).
func TestTooLargeFormIsAPage(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "POST /login HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\nAccept-Language: pt-BR\r\n"+
		"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\nemail=", 2<<20)
	require.NoError(t, err)
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusRequestEntityTooLarge, res.StatusCode)
	require.Equal(t, "text/html; charset=utf-8", res.Header.Get("Content-Type"))
	doc, err := goquery.NewDocumentFromReader(res.Body)
	require.NoError(t, err)
	require.Equal(t, "pt-BR", doc.Find("html").AttrOr("lang", ""))
	require.Contains(t, doc.Find(`[data-testid="error-page"]`).Text(), "O envio é grande demais.")
}
