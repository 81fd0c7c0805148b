package reply

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"payments/store"
)

// reportFileRead bounds how long serving one file may take.
const reportFileRead = 10 * time.Minute

// ReportFile answers with ready report r's file, a part at a time: to the
// account's keys (the API's file_url) and to its people (the dashboard).
// A report not ready is a 409, one past its 7 days a 410.
func ReportFile(c *fiber.Ctx, st *store.Store, r *store.Report) error {
	switch err := r.FileGone(st.Now()); {
	case errors.Is(err, store.ErrReportNotReady):
		return InvalidRequest(http.StatusConflict, "report_not_ready", "This report is %s: its file is there once it is ready (report.ready).", r.Status)
	case errors.Is(err, store.ErrReportExpired):
		return InvalidRequest(http.StatusGone, "report_expired", "This report's file was kept until %s and is gone: ask for the report again.",
			r.ExpiresAt.UTC().Format(time.RFC3339))
	}
	c.Set(fiber.HeaderContentType, r.ContentType())
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="`+r.FileName()+`"`)
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	c.Set("X-Content-Type-Options", "nosniff")
	if r.SHA256 != nil {
		c.Set("Digest", "sha-256="+*r.SHA256)
	}
	size := -1
	if r.SizeBytes != nil {
		size = int(*r.SizeBytes)
	}
	c.Status(http.StatusOK)
	// The body is written after the handler returns: its reads take a
	// context of their own. Content-Length tells a client whose download
	// stopped short that it did.
	c.Context().Response.SetBodyStreamWriter(func(w *bufio.Writer) {
		ctx, cancel := context.WithTimeout(context.Background(), reportFileRead)
		defer cancel()
		_ = st.ReportParts(ctx, r, func(part []byte) error {
			if _, err := w.Write(part); err != nil {
				return err
			}
			return w.Flush()
		})
	})
	if size >= 0 {
		c.Context().Response.Header.SetContentLength(size)
		c.Set(fiber.HeaderContentLength, strconv.Itoa(size))
	}
	return nil
}

// Report maps the store's answer about report id.
func Report(err error, id string) error {
	if r := refusal(err); r != nil {
		return r
	}
	if errors.Is(err, store.ErrNotFound) {
		return NoSuch("report", "id", id)
	}
	return err
}
