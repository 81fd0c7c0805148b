package dispatcher_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/dispatcher"
)

// An answer's body is read whole, whether it declares its length or not,
// and only its first MaxResponseBody bytes are kept; an answer read whole
// leaves its connection for the next attempt, an empty one included. No
// compressed answer is asked for.
func TestAnswersAreReadWholeAndKeepTheirConnection(t *testing.T) {
	long := strings.Repeat("x", dispatcher.MaxResponseBody+10)
	var opened atomic.Int32
	var askedEncodings atomic.Int32
	recv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept-Encoding") != "" {
			askedEncodings.Add(1)
		}
		body := r.URL.Query().Get("body")
		if body == "long" {
			body = long
		}
		if r.URL.Query().Get("chunked") == "" {
			w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		}
		w.Header()["X-Odd"] = []string{"a\xffb"}
		w.WriteHeader(http.StatusOK)
		for i := 0; i < len(body); i += 1000 {
			_, _ = w.Write([]byte(body[i:min(i+1000, len(body))]))
			if f, ok := w.(http.Flusher); ok && r.URL.Query().Get("chunked") != "" {
				f.Flush()
			}
		}
	}))
	recv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			opened.Add(1)
		}
	}
	recv.Start()
	defer recv.Close()
	sender := dispatcher.NewSender(dispatcher.SenderConfig{AllowPrivate: true})
	send := func(query string) dispatcher.Result {
		res := sender.Send(context.Background(), recv.URL+"/hook?"+query, nil, map[string]string{"Content-Type": "application/json"}, []byte("{}"))
		require.Empty(t, res.ErrClass, res.ErrMessage)
		require.Equal(t, http.StatusOK, res.StatusCode)
		return res
	}
	for range 3 {
		for _, c := range []struct{ query, body string }{
			{"body=", ""}, {"body=ok", "ok"}, {"body=" + strings.Repeat("y", 5000), strings.Repeat("y", 5000)},
			{"chunked=1&body=", ""}, {"chunked=1&body=" + strings.Repeat("z", 3000), strings.Repeat("z", 3000)},
		} {
			res := send(c.query)
			require.NotNil(t, res.Body, "an empty body is stored empty, not absent")
			require.Equal(t, c.body, string(res.Body), c.query)
			require.False(t, res.BodyTruncated)
		}
	}
	require.EqualValues(t, 1, opened.Load(), "every answer read whole: one connection for all")
	require.Zero(t, askedEncodings.Load(), "no compressed answer asked for: bodies are kept as receivers send them")

	for _, query := range []string{"body=long", "chunked=1&body=long"} {
		res := send(query)
		require.Equal(t, long[:dispatcher.MaxResponseBody], string(res.Body), query)
		require.True(t, res.BodyTruncated, query)
	}
}
