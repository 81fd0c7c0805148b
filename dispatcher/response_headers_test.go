package dispatcher_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/dispatcher"
	"payments/web/webtest"
)

// A receiver answering with hundreds of kilobytes of headers has at most
// MaxStoredResponseHeaders of them stored, with the truncation said; one
// answering with megabytes (past MaxResponseHeaderBytes) fails the attempt
// and has none stored.
func TestResponseHeadersAreCappedWhenStored(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	answerWith := func(n int) *webtest.Receiver {
		return webtest.NewReceiver(t, func(w http.ResponseWriter, _ *http.Request) {
			value := strings.Repeat("a", 7_000)
			for i := range n {
				w.Header().Set(fmt.Sprintf("X-Big-%04d", i), value)
			}
			w.WriteHeader(http.StatusOK)
		})
	}
	big, huge := answerWith(100), answerWith(1_000)
	bigID, _ := s.CreateWebhook(big.URL, map[string]any{"events": []string{"payment.paid"}})
	hugeID, _ := s.CreateWebhook(huge.URL, map[string]any{"events": []string{"payment.paid"}})
	payPayment(t, s)
	require.Equal(t, 2, s.Dispatcher.RunOnce(context.Background(), 100))

	type stored struct {
		Headers    *string `bun:"headers"`
		Size       int     `bun:"size"`
		ErrorClass *string `bun:"error_class"`
		Message    *string `bun:"error_message"`
	}
	read := func(webhookID string) stored {
		var a stored
		require.NoError(t, s.DB.NewRaw(`SELECT response_headers::text AS headers, coalesce(octet_length(response_headers::text), 0) AS size,
			error_class, error_message FROM delivery_attempts WHERE webhook_id = ?`, webhookID).Scan(context.Background(), &a))
		return a
	}
	got := read(bigID)
	require.Nil(t, got.ErrorClass, "700 kB of headers are read: the delivery succeeded")
	require.LessOrEqual(t, got.Size, dispatcher.MaxStoredResponseHeaders+512, "stored bytes of 700 kB of headers")
	require.Contains(t, *got.Headers, `"(truncated)": ["`)
	require.Contains(t, *got.Headers, "bytes not kept: the first 8 KiB of headers are")

	got = read(hugeID)
	require.Equal(t, "network", *got.ErrorClass, "7 MB of headers are not read")
	require.Contains(t, *got.Message, "headers exceeded")
	require.Nil(t, got.Headers)

	// The API shows the truncation where the headers are.
	r := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/webhooks/" + bigID + "/deliveries", Key: s.TestKey})
	require.Equal(t, http.StatusOK, r.Status)
	require.Contains(t, string(r.Body), `"(truncated)":["`)
	require.Less(t, len(r.Body), 24<<10)
}

// Response headers are stored as text: as they came when they are valid
// UTF-8, with the replacement character for what is not.
func TestResponseHeadersAreStoredAsValidText(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	odd := webtest.NewReceiver(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header()["X-Odd"] = []string{"a\xffb"}
		w.Header().Set("X-Plain", "tudo certo")
		w.WriteHeader(http.StatusOK)
	})
	plain := webtest.NewReceiver(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Plain", "ação")
		w.WriteHeader(http.StatusOK)
	})
	oddID, _ := s.CreateWebhook(odd.URL, map[string]any{"events": []string{"payment.paid"}})
	plainID, _ := s.CreateWebhook(plain.URL, map[string]any{"events": []string{"payment.paid"}})
	payPayment(t, s)
	require.Equal(t, 2, s.Dispatcher.RunOnce(context.Background(), 100))
	read := func(webhookID, name string) string {
		var v string
		require.NoError(t, s.DB.NewRaw(`SELECT response_headers->?->>0 FROM delivery_attempts WHERE webhook_id = ? AND response_status = 200`,
			name, webhookID).Scan(context.Background(), &v))
		return v
	}
	require.Equal(t, "a\uFFFDb", read(oddID, "X-Odd"))
	require.Equal(t, "tudo certo", read(oddID, "X-Plain"))
	require.Equal(t, "ação", read(plainID, "X-Plain"))
}
