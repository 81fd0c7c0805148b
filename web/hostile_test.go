package web_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// hostile are the bytes an attacker puts where an id or a header goes:
// invalid UTF-8, NUL and other control characters, raw and percent-encoded.
var hostile = []string{
	"\xff", "\xc3\x28", "a\xe2\x82", "\x00", "pay\x00ment", "\x01", "\x1b[31m", "\x7f", "\xed\xa0\x80",
	"%ff", "%00", "%c3%28", "%e2%82", "%0d%0aX-Injected:%201", "%7f", "%25ff", "evt_%00", "wh_\x08",
}

// Every route, with hostile bytes in each path segment and in each header a
// handler reads: never a 5xx; our own refusals are in the error shape.
// (Bytes fasthttp's parser itself refuses get its plain 400.)
func TestHostileBytesNeverReachTheDatabase(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	b := newBrowser(t, s)
	b.login("dona@example.com", "correct-horse-battery")
	u, err := url.Parse(s.URL)
	require.NoError(t, err)
	var cookie string
	for _, c := range b.client.Jar.Cookies(u) {
		cookie += c.Name + "=" + c.Value + "; "
	}

	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 42))
	pick := func() string { return hostile[rng.IntN(len(hostile))] }

	param := regexp.MustCompile(`:[a-z_]+`)
	var routes [][2]string
	seen := map[string]bool{}
	for _, r := range s.App.GetRoutes(true) {
		if r.Method == http.MethodHead || r.Method == http.MethodOptions || strings.Contains(r.Path, "*") || seen[r.Method+r.Path] {
			continue
		}
		seen[r.Method+r.Path] = true
		routes = append(routes, [2]string{r.Method, r.Path})
	}
	headers := []string{"Authorization", "X-API-Key", "Idempotency-Key", "Last-Event-ID", "Accept-Language", "Content-Type", "Cookie", "X-CSRF-Token", "HX-Request"}

	sent, fiveXX := 0, 0
	send := func(method, path string, extra map[string]string) {
		t.Helper()
		status, body, ctype := rawRequest(t, u.Host, method, path, s.TestKey, cookie, extra)
		sent++
		if status >= 500 {
			fiveXX++
			t.Errorf("%s %q %q: %d %s", method, path, extra, status, body)
			return
		}
		require.GreaterOrEqual(t, status, 200)
		if status >= 400 && strings.HasPrefix(ctype, "application/json") {
			var e struct {
				Error struct{ Code string } `json:"error"`
			}
			require.NoError(t, json.Unmarshal([]byte(body), &e), "%s %q: %s", method, path, body)
			require.NotEmpty(t, e.Error.Code, "%s %q: %s", method, path, body)
		}
	}
	for _, r := range routes {
		method, tmpl := r[0], r[1]
		segments := strings.Split(tmpl, "/")
		// Each segment in turn: a parameter or a fixed part replaced.
		for i := 1; i < len(segments); i++ {
			for range 3 {
				parts := append([]string(nil), segments...)
				parts[i] = pick()
				send(method, param.ReplaceAllString(strings.Join(parts, "/"), "x"), nil)
			}
		}
		// Every parameter hostile at once.
		send(method, param.ReplaceAllStringFunc(tmpl, func(string) string { return pick() }), nil)
		for _, h := range headers {
			send(method, param.ReplaceAllString(tmpl, "x"), map[string]string{h: pick()})
		}
	}
	t.Logf("%d hostile requests over %d routes, %d answered 5xx", sent, len(routes), fiveXX)
	require.GreaterOrEqual(t, sent, 1000)
	require.Zero(t, fiveXX)
}

// rawRequest writes a request byte for byte (Go's client would refuse or
// escape these bytes) and reads the status, body and content type.
func rawRequest(t *testing.T, host, method, path, key, cookie string, headers map[string]string) (int, string, string) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", host, 5*time.Second)
	require.NoError(t, err)
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	h := map[string]string{"Host": host, "Authorization": "Bearer " + key, "Cookie": cookie, "Accept": "*/*", "Connection": "close"}
	var body string
	if method == http.MethodPost {
		h["Content-Type"] = "application/json"
		body = "{}"
	}
	for k, v := range headers {
		h[k] = v
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\n", method, path)
	for k, v := range h {
		fmt.Fprintf(&b, "%s: %s\r\n", k, v)
	}
	fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s", len(body), body)
	_, err = io.WriteString(conn, b.String())
	require.NoError(t, err)
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 400, "unparsable answer: " + err.Error(), "" // the connection was refused outright
	}
	defer res.Body.Close()
	if strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		_ = conn.SetDeadline(time.Now()) // Close would read it to the end, which never comes
		return res.StatusCode, "(a stream)", res.Header.Get("Content-Type")
	}
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 1<<16))
	return res.StatusCode, string(raw), res.Header.Get("Content-Type")
}
