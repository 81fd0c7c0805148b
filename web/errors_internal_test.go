package web

import (
	"errors"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"
)

// A failure of ours (500) and the database out of reach (503) are pages
// in the browser's language on the dashboard and the checkout, with the
// request id to quote and nothing of the error itself; the API keeps JSON.
func TestServerErrorsAreLocalizedPages(t *testing.T) {
	app := fiber.New(fiber.Config{ErrorHandler: errorHandler(slog.New(slog.NewTextHandler(io.Discard, nil)))})
	boom := errors.New("secret detail: pq: relation payments")
	down := &pgconn.PgError{Code: "57P03", Message: "the database system is starting up"}
	for _, prefix := range []string{"/dashboard", "/pay", "/api/v1"} {
		app.Get(prefix+"/boom", func(c *fiber.Ctx) error { return boom })
		app.Get(prefix+"/down", func(c *fiber.Ctx) error { return down })
	}
	for _, c := range []struct {
		path, lang string
		status     int
		title      string
	}{
		{"/dashboard/boom", "pt-BR,pt;q=0.9", 500, "Erro no serviço"},
		{"/pay/boom", "en-US", 500, "Service error"},
		{"/dashboard/down", "pt-BR", 503, "Serviço indisponível por um instante"},
		{"/pay/down", "pt-BR", 503, "Serviço indisponível por um instante"},
	} {
		req := httptest.NewRequest("GET", c.path, nil)
		req.Header.Set("Accept", "text/html")
		req.Header.Set("Accept-Language", c.lang)
		res, err := app.Test(req)
		require.NoError(t, err)
		body, _ := io.ReadAll(res.Body)
		require.Equal(t, c.status, res.StatusCode, c.path)
		require.Equal(t, "text/html; charset=utf-8", res.Header.Get("Content-Type"), c.path)
		require.Contains(t, string(body), c.title, c.path)
		require.Contains(t, string(body), `data-testid="error-page"`)
		require.NotContains(t, string(body), "secret detail")
		if c.status == 503 {
			require.NotEmpty(t, res.Header.Get("Retry-After"))
		}
	}
	for _, path := range []string{"/api/v1/boom", "/api/v1/down"} {
		res, err := app.Test(httptest.NewRequest("GET", path, nil))
		require.NoError(t, err)
		body, _ := io.ReadAll(res.Body)
		require.Equal(t, "application/json", res.Header.Get("Content-Type"))
		require.True(t, strings.HasPrefix(string(body), `{"error":{`), "%s", body)
	}
}
