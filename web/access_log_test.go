package web

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"

	"payments/handlers/request"
	"payments/store"
)

// slogLine is what slog's JSON handler writes for a "request" record.
func slogLine(t *testing.T, at time.Time, attrs ...slog.Attr) string {
	t.Helper()
	var line bytes.Buffer
	rec := slog.NewRecord(at, slog.LevelInfo, "request", 0)
	rec.AddAttrs(attrs...)
	require.NoError(t, slog.NewJSONHandler(&line, nil).Handle(context.Background(), rec))
	return line.String()
}

// The access line is built by hand for speed: it must be exactly the line
// slog's JSON handler writes for the same record.
func TestAccessLineIsSlogsLine(t *testing.T) {
	var lines bytes.Buffer
	key := &store.APIKey{ID: "key_1", AccountID: "acct_\"1\"", Livemode: true}
	app := fiber.New()
	app.Use(requestID, accessLog(&lines))
	app.Get("/with-key/*", func(c *fiber.Ctx) error {
		request.SetAPIKey(c, key)
		return c.SendStatus(fiber.StatusTeapot)
	})
	app.Get("/*", func(c *fiber.Ctx) error { return fiber.ErrNotFound })

	for _, path := range []string{"/with-key/a", "/x/%22q%22/%3Cb%3E/caf%C3%A9", "/x/%FF%0A"} {
		lines.Reset()
		res, err := app.Test(httptest.NewRequest("GET", path, nil))
		require.NoError(t, err)
		line := lines.String()
		// The record rebuilt from the line's own time and duration.
		var fields struct {
			Time       time.Time `json:"time"`
			DurationMS float64   `json:"duration_ms"`
			Path       string    `json:"path"`
			Status     int       `json:"status"`
			RequestID  string    `json:"request_id"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &fields), line)
		require.Equal(t, res.StatusCode, fields.Status)
		require.Equal(t, res.Header.Get(HeaderRequestID), fields.RequestID)
		require.Equal(t, path, fields.Path)
		attrs := []slog.Attr{
			slog.String("request_id", fields.RequestID), slog.String("method", "GET"), slog.String("path", path),
			slog.Int("status", fields.Status), slog.Float64("duration_ms", fields.DurationMS), slog.String("ip", "0.0.0.0"),
		}
		if strings.HasPrefix(path, "/with-key/") {
			attrs = append(attrs, slog.String("account_id", key.AccountID), slog.String("api_key_id", key.ID), slog.Bool("livemode", true))
		}
		require.Equal(t, slogLine(t, fields.Time, attrs...), line)
	}

	// A client can send what no escaping client would: raw quotes, angle
	// brackets, control bytes, invalid UTF-8, U+2028.
	start := time.Date(2026, 11, 23, 3, 4, 5, 6, time.UTC)
	for _, raw := range []string{"/a<b>&c", "/q\"\\", "/ctl\x01\x7f", "/bad\xff\xfe", "/sep\u2028\u2029", "/é😀"} {
		rc := &fasthttp.RequestCtx{}
		rc.Request.Header.SetMethod("GET")
		rc.Request.SetRequestURI(raw)
		c := app.AcquireCtx(rc)
		request.SetRequestID(c, "req_1")
		got := string(appendAccessLine(nil, c, start, start.Add(1500*time.Microsecond)))
		want := slogLine(t, start.Add(1500*time.Microsecond), slog.String("request_id", "req_1"), slog.String("method", "GET"),
			slog.String("path", c.Path()), slog.Int("status", 200), slog.Float64("duration_ms", 1.5), slog.String("ip", "0.0.0.0"))
		app.ReleaseCtx(c)
		require.Equal(t, want, got, "%q", raw)
	}
}
