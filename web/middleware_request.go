package web

import (
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/request"
	"payments/store/ids"
	"payments/store/jsonw"
)

// HeaderRequestID carries the request id on every response.
const HeaderRequestID = "X-Request-Id"

// requestID gives every request a req_ id, on the response and in the logs.
func requestID(c *fiber.Ctx) error {
	ensureRequestID(c)
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	return c.Next()
}

// ensureRequestID returns the request's id, minting it if no middleware has
// (errors Fiber raises before routing, like an oversized body, skip them).
func ensureRequestID(c *fiber.Ctx) string {
	id := request.RequestID(c)
	if id == "" {
		id = ids.New(ids.PrefixRequest)
		request.SetRequestID(c, id)
		c.Set(HeaderRequestID, id)
	}
	return id
}

// accessLog writes one line per request to out (nil: none) and renders
// errors first, so the line has the final status. It logs no headers and no
// body: they can hold secrets.
//
// The line is the JSON object slog's JSON handler writes for a "request"
// record with these attributes, built here directly: it is written for
// every request, and slog's generic path (a float even goes through
// encoding/json) was a twelfth of a payment read's CPU.
func accessLog(out io.Writer) fiber.Handler {
	lines := sync.Pool{New: func() any { return new([]byte) }}
	return func(c *fiber.Ctx) error {
		start := time.Now()
		if err := c.Next(); err != nil {
			if herr := c.App().ErrorHandler(c, err); herr != nil {
				return herr
			}
		}
		if out == nil {
			return nil
		}
		buf := lines.Get().(*[]byte)
		*buf = appendAccessLine((*buf)[:0], c, start, time.Now())
		_, _ = out.Write(*buf)
		lines.Put(buf)
		return nil
	}
}

func appendAccessLine(b []byte, c *fiber.Ctx, start, now time.Time) []byte {
	b = append(b, `{"time":"`...)
	b = now.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":"INFO","msg":"request","request_id":`...)
	b = jsonw.AppendLogString(b, request.RequestID(c))
	b = append(b, `,"method":`...)
	b = jsonw.AppendLogString(b, c.Method())
	b = append(b, `,"path":`...)
	b = jsonw.AppendLogString(b, loggedPath(c))
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(c.Response().StatusCode()), 10)
	b = append(b, `,"duration_ms":`...)
	b = strconv.AppendFloat(b, float64(now.Sub(start).Microseconds())/1000, 'f', -1, 64)
	b = append(b, `,"ip":`...)
	b = jsonw.AppendLogString(b, c.IP())
	if k := request.APIKey(c); k != nil {
		b = append(b, `,"account_id":`...)
		b = jsonw.AppendLogString(b, k.AccountID)
		b = append(b, `,"api_key_id":`...)
		b = jsonw.AppendLogString(b, k.ID)
		b = append(b, `,"livemode":`...)
		b = strconv.AppendBool(b, k.Livemode)
	}
	return append(b, "}\n"...)
}

// loggedPath is the request's path as logs may show it: the PSP callback's
// path token is a secret, so it is replaced.
func loggedPath(c *fiber.Ctx) string {
	path := c.Path()
	if rest, ok := strings.CutPrefix(path, "/psp/webhook/"); ok && rest != "pix" && rest != "rec" && rest != "cobr" && rest != "infracoes" && rest != "med" {
		kind := rest[strings.LastIndexByte(rest, '/')+1:]
		return "/psp/webhook/{token}/" + kind
	}
	return path
}
