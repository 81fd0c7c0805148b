// Package psp receives the payment service provider's callbacks: transfers
// received (the Banco Central's Pix webhook body), disputes (PIX MED) and
// the outcome of withdrawals. Every body is JSON with the fields documented
// for its route and no others.
package psp

import (
	"crypto/subtle"
	"net/http"
	"regexp"
	"strings"

	"github.com/gofiber/fiber/v2"

	"payments/store"
	"payments/web/reply"
	"payments/web/request"
)

// PSP receives the payment service provider's notifications.
type PSP struct {
	Store *store.Store
	// Token is the shared secret the PSP sends as a Bearer token; empty
	// refuses every notification.
	Token string
}

// EndToEndIDPattern is a PIX transfer's id (E + ISPB + date + sequence).
var EndToEndIDPattern = regexp.MustCompile(`^[A-Za-z0-9]{32}$`)

// body checks the PSP's token and reads its JSON body, which may carry only
// the allowed fields.
func (p *PSP) body(c *fiber.Ctx, allowed ...string) (request.Object, *reply.Error) {
	given, bearer := strings.CutPrefix(c.Get(fiber.HeaderAuthorization), "Bearer ")
	if !bearer || p.Token == "" || subtle.ConstantTimeCompare([]byte(given), []byte(p.Token)) != 1 {
		return request.Object{}, &reply.Error{Status: http.StatusUnauthorized, Type: reply.TypeAuthentication, Code: "psp_token_invalid",
			Message: "Send the PSP token as 'Authorization: Bearer <token>'."}
	}
	return request.Body(c, allowed...)
}

// resultJSON answers a dispute or withdrawal notification.
type resultJSON struct {
	ID        string `json:"id"`
	Object    string `json:"object"`
	Status    string `json:"status"`
	Duplicate bool   `json:"duplicate"`
}
