package web

import (
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/store"
	"payments/views"
)

type errorBody struct {
	Error errorFields `json:"error"`
}

type errorFields struct {
	Type      string  `json:"type"`
	Code      string  `json:"code"`
	Message   string  `json:"message"`
	Param     *string `json:"param"`
	RequestID string  `json:"request_id"`
}

// errorHandler renders every error in the API error shape. Only
// *reply.Error carries a client-visible message; Fiber's own errors map to
// stable codes, and anything else is a logged 500 that reveals nothing.
func errorHandler(log *slog.Logger) fiber.ErrorHandler {
	return func(c *fiber.Ctx, err error) error {
		apiErr := toAPIError(err)
		requestID := ensureRequestID(c)
		switch {
		case apiErr.Code == "service_unavailable":
			// The database is out of reach: the client was told to retry.
			log.WarnContext(c.UserContext(), "request refused: database unavailable",
				"request_id", requestID, "method", c.Method(), "path", loggedPath(c), "error", err.Error())
		case apiErr.Status >= http.StatusInternalServerError:
			log.ErrorContext(c.UserContext(), "request failed",
				"request_id", requestID, "method", c.Method(), "path", loggedPath(c), "error", err.Error())
		}
		body := errorBody{Error: errorFields{
			Type: apiErr.Type, Code: apiErr.Code, Message: apiErr.Message, RequestID: requestID,
		}}
		if apiErr.Param != "" {
			body.Error.Param = &apiErr.Param
		}
		c.Response().Header.Del(fiber.HeaderLocation)
		if apiErr.RetryAfter > 0 {
			c.Set(fiber.HeaderRetryAfter, strconv.Itoa(apiErr.RetryAfter))
		}
		if errors.Is(err, fiber.ErrRequestHeaderFieldsTooLarge) {
			// Fasthttp could not read the request's headers at all (a URL or
			// cookie past its read buffer): with no path, Accept or language
			// to go by, a person's browser as likely as an API client sent
			// it, so the answer is a page, in Portuguese and English.
			return unreadRequestPage(c, apiErr, requestID)
		}
		if apiErr.Code == "step_up_required" && strings.HasPrefix(c.Path(), "/dashboard/") {
			// A person asked for a change that wants a fresh second
			// factor: they prove it, then come back to the page they were on.
			return c.Redirect("/dashboard/verify?next="+url.QueryEscape(backTo(c)), http.StatusSeeOther)
		}
		if wantsHTML(c) {
			return htmlError(c, apiErr, requestID)
		}
		return c.Status(apiErr.Status).JSON(body)
	}
}

// backTo is the dashboard page a request came from (its Referer, when it
// is one of this site's dashboard pages), else the dashboard.
func backTo(c *fiber.Ctx) string {
	if ref, err := url.Parse(c.Get(fiber.HeaderReferer)); err == nil && strings.HasPrefix(ref.Path, "/dashboard") &&
		(ref.Host == "" || ref.Host == string(c.Request().Host())) {
		return ref.RequestURI()
	}
	return "/dashboard"
}

func toAPIError(err error) *reply.Error {
	var apiErr *reply.Error
	if errors.As(err, &apiErr) {
		return apiErr
	}
	// The operations' own refusals (a permission, a second factor, live
	// mode) that no handler mapped are still the 403s they are.
	if refused, ok := reply.Refusal(err).(*reply.Error); ok {
		return refused
	}
	var fe *fiber.Error
	if errors.As(err, &fe) {
		switch fe.Code {
		case http.StatusNotFound:
			return reply.InvalidRequest(http.StatusNotFound, "route_not_found", "No such route. See /api/v1/openapi.json for the API's routes.")
		case http.StatusMethodNotAllowed:
			return reply.InvalidRequest(http.StatusMethodNotAllowed, "method_not_allowed", "This route does not accept that method.")
		case http.StatusRequestEntityTooLarge:
			return reply.InvalidRequest(http.StatusRequestEntityTooLarge, "body_too_large", "The request body is too large.")
		case http.StatusRequestTimeout:
			return reply.InvalidRequest(http.StatusRequestTimeout, "request_timeout", "The request took too long to arrive.")
		case http.StatusRequestHeaderFieldsTooLarge:
			return reply.InvalidRequest(http.StatusRequestHeaderFieldsTooLarge, "headers_too_large", "The request headers are too large.")
		}
		if fe.Code >= 400 && fe.Code < 500 {
			return reply.InvalidRequest(fe.Code, "invalid_request", "The request could not be processed: %s", http.StatusText(fe.Code))
		}
	}
	if store.Unavailable(err) {
		return reply.Unavailable()
	}
	return reply.Internal()
}

// wantsHTML is true for the browser's pages: the API, health checks and the
// QR image always answer JSON errors.
func wantsHTML(c *fiber.Ctx) bool {
	path := c.Path()
	if strings.HasPrefix(path, "/api/") || path == "/healthz" || path == "/readyz" || strings.HasSuffix(path, ".png") {
		return false
	}
	return strings.Contains(c.Get(fiber.HeaderAccept), "text/html") ||
		strings.HasPrefix(path, "/dashboard") || strings.HasPrefix(path, "/pay/") || path == "/login" || path == "/logout"
}

// htmlError is an error as a page, in the person's language (the signed-in
// user's, else the browser's): a title for the status, a sentence for the
// code (never the API's English), and a way back into the dashboard, except
// on the payer's pages, which have no dashboard to go back to.
func htmlError(c *fiber.Ctx, apiErr *reply.Error, requestID string) error {
	ctx := c.UserContext()
	if _, ok := views.LocaleIn(ctx); !ok {
		ctx = views.WithLocale(ctx, views.NewLocale(views.MatchLanguage(c.Get(fiber.HeaderAcceptLanguage)), ""))
		c.SetUserContext(ctx)
	}
	page := views.ErrorPage{Status: apiErr.Status, Title: views.HTTPTitle(ctx, apiErr.Status),
		Message: views.ErrorText(ctx, apiErr.Code), RequestID: requestID}
	if !strings.HasPrefix(c.Path(), "/pay/") {
		page.BackURL, page.BackLabel = "/dashboard", views.T(ctx, "error.back")
	}
	return reply.Page(c, apiErr.Status, views.Error(page))
}

// unreadRequestPage is the error page of a request whose headers were never
// read: in Portuguese, the product's language, with the English beside it.
func unreadRequestPage(c *fiber.Ctx, apiErr *reply.Error, requestID string) error {
	pt := views.WithLocale(c.UserContext(), views.NewLocale("pt-BR", ""))
	en := views.WithLocale(c.UserContext(), views.NewLocale("en", ""))
	c.SetUserContext(pt)
	return reply.Page(c, apiErr.Status, views.Error(views.ErrorPage{Status: apiErr.Status,
		Title: views.HTTPTitle(pt, apiErr.Status), Message: views.ErrorText(pt, apiErr.Code), RequestID: requestID,
		English: &views.ErrorLines{Title: views.HTTPTitle(en, apiErr.Status), Message: views.ErrorText(en, apiErr.Code)}}))
}
