package reply

import (
	"mime"
	"net/http"
	"strconv"

	"github.com/gofiber/fiber/v2"
)

// EvidenceFile answers with a dispute's evidence file for download: never
// shown inline nor sniffed as anything else, never cached.
func EvidenceFile(c *fiber.Ctx, name, contentType string, content []byte) error {
	c.Set(fiber.HeaderContentType, contentType)
	disposition := mime.FormatMediaType("attachment", map[string]string{"filename": name})
	if disposition == "" {
		disposition = "attachment"
	}
	c.Set(fiber.HeaderContentDisposition, disposition)
	c.Set(fiber.HeaderContentLength, strconv.Itoa(len(content)))
	c.Set(fiber.HeaderCacheControl, "private, no-store")
	c.Set("X-Content-Type-Options", "nosniff")
	c.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	return c.Status(http.StatusOK).Send(content)
}
