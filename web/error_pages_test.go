package web_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"payments/store"
	"payments/web"
	"payments/web/webtest"
)

// Every error a person's browser can reach is a page in their language,
// never the API's JSON: a page that does not exist (404), a form too large
// to take (413, below), headers too long to read (431, below).
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
// A 5,000-character search reaches its page (the request line is read up
// to 8 KiB): a page, in Portuguese, that finds nothing.
func TestLongSearchIsAPage(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	_, err := s.Store.CreateUser(context.Background(), "ajuda@example.com", "correct-horse-battery", store.RoleSupport, "")
	require.NoError(t, err)
	b := newBrowser(t, s)
	b.login("ajuda@example.com", "correct-horse-battery")
	r := b.do("GET", "/dashboard/support?q="+strings.Repeat("x", 5_000), nil, nil)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	require.Equal(t, "pt-BR", r.doc.Find("html").AttrOr("lang", ""))
	require.Equal(t, 1, r.doc.Find(`[data-testid="support-empty"]`).Length(), "nothing found")
}

// Headers past what is read (431) are a page in Portuguese and English:
// with nothing read, there is no language to go by. Exactly the read
// buffer is sent, so the server has read every byte when it answers and
// closes (unread bytes would reset the connection under the answer).
func TestUnreadableHeadersAreAPage(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	line := "GET /dashboard/support?q="
	_, err = conn.Write([]byte(line + strings.Repeat("x", 8<<10-len(line))))
	require.NoError(t, err)
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusRequestHeaderFieldsTooLarge, res.StatusCode)
	require.Equal(t, "text/html; charset=utf-8", res.Header.Get("Content-Type"))
	doc, err := goquery.NewDocumentFromReader(res.Body)
	require.NoError(t, err)
	require.Equal(t, "pt-BR", doc.Find("html").AttrOr("lang", ""))
	require.Contains(t, doc.Find(`[data-testid="error-page"]`).Text(), "Endereço ou cabeçalhos grandes demais")
	require.Equal(t, 1, doc.Find(`[data-testid="error-page"] [lang="en"]`).Length(), "the English beside the Portuguese")
}

func TestTooLargeFormIsAPage(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "POST /login HTTP/1.1\r\nHost: x\r\nAccept: text/html\r\nAccept-Language: pt-BR\r\n"+
		"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\nemail=", 2*web.DefaultBodyLimit)
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
