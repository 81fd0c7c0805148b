package api_test

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// Path ids are percent-decoded: generated clients escape ':' (and may
// escape anything else), so an external_id reads the same either way.
func TestPathIDsArePercentDecoded(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	p := s.CreatePayment(map[string]any{"amount_cents": 1000, "external_id": "a:b~c-1"})
	id := p["id"].(string)
	for _, path := range []string{"a:b~c-1", "a%3Ab~c-1", "a%3ab%7Ec%2D1", "%61%3A%62%7E%63%2D%31"} {
		r := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + path, Key: s.TestKey})
		require.Equal(t, http.StatusOK, r.Status, "%s: %s", path, r.Body)
		require.Equal(t, id, r.JSON(t)["id"], path)
	}
	pay := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/a%3Ab~c-1/pay", Key: s.TestKey})
	require.Equal(t, http.StatusOK, pay.Status, "%s", pay.Body)
	refund := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments/a%3Ab%7Ec-1/refund", Key: s.TestKey})
	require.Equal(t, http.StatusOK, refund.Status, "%s", refund.Body)
	require.Equal(t, "refunded", refund.JSON(t)["status"])

	other := s.CreatePayment(map[string]any{"amount_cents": 1000, "external_id": "x:1"})
	cancel := s.Do(webtest.Request{Method: "DELETE", Path: "/api/v1/payments/x%3A1", Key: s.TestKey})
	require.Equal(t, http.StatusOK, cancel.Status, "%s", cancel.Body)
	require.Equal(t, other["id"], cancel.JSON(t)["id"])
	require.Equal(t, "canceled", cancel.JSON(t)["status"])

	hook, _ := s.CreateWebhook("https://example.com/hooks", nil)
	got := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/webhooks/" + strings.Replace(hook, "_", "%5F", 1), Key: s.TestKey})
	require.Equal(t, http.StatusOK, got.Status, "%s", got.Body)
	require.Equal(t, hook, got.JSON(t)["id"])
}

// An escape that is not one names nothing: a 404 in the error shape, never a 500.
func TestBadEscapesInPathIDsAreNotFound(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	for _, path := range []string{
		"/api/v1/payments/%zz", "/api/v1/payments/%", "/api/v1/payments/a%4", "/api/v1/webhooks/wh_%g1",
		"/api/v1/disputes/%zz", "/api/v1/withdrawals/%zz",
	} {
		status, body := rawGet(t, s, path, s.TestKey)
		require.Equal(t, http.StatusNotFound, status, "%s: %s", path, body)
		require.Contains(t, body, `"code":"resource_missing"`, path)
	}
	for _, path := range []string{"/api/v1/payments/%zz/refund", "/api/v1/test_helpers/payments/%zz/pay"} {
		status, body := rawRequest(t, s, "POST", path, s.TestKey)
		require.Equal(t, http.StatusNotFound, status, "%s: %s", path, body)
		require.Contains(t, body, `"code":"resource_missing"`, path)
	}
}

func rawGet(t *testing.T, s *webtest.Server, path, key string) (int, string) {
	return rawRequest(t, s, "GET", path, key)
}

// rawRequest sends a request line as written, which Go's client would
// refuse to (it parses the URL first).
func rawRequest(t *testing.T, s *webtest.Server, method, path, key string) (int, string) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.Write([]byte(method + " " + path + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + key +
		"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
	require.NoError(t, err)
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	defer res.Body.Close()
	var b strings.Builder
	_, _ = bufio.NewReader(res.Body).WriteTo(&b)
	return res.StatusCode, b.String()
}
