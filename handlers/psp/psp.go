// Package psp receives the payment service provider's callbacks: the API
// Pix webhook (transfers received, devoluções and payouts that ended), each
// a hint confirmed with the PSP before money moves, and disputes (PIX MED).
// Every body is JSON with the fields documented for its route and no others.
package psp

import (
	"crypto/subtle"
	"net/http"
	"regexp"
	"strings"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/operations"
	"payments/store"
)

// PSP receives the payment service provider's callbacks.
type PSP struct {
	Store *store.Store
	// Ops makes the changes the PSP reports.
	Ops *operations.Operations
	// Token is the shared secret the PSP sends as a Bearer token with
	// dispute notifications; empty refuses them.
	Token string
	// CallbackMTLS says the service terminates TLS and verifies the PSP's
	// client certificate: /psp/webhook/pix accepts callbacks that presented one.
	CallbackMTLS bool
	// CallbackToken is the unguessable path token of /psp/webhook/{token}/pix,
	// for a service behind a proxy; empty refuses that route.
	CallbackToken string
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

// resultJSON answers a dispute notification.
type resultJSON struct {
	ID        string `json:"id"`
	Object    string `json:"object"`
	Status    string `json:"status"`
	Duplicate bool   `json:"duplicate"`
}

// pspActor is the PSP as its callback asks: with the request's address and id.
func pspActor(c *fiber.Ctx) store.Actor { return request.PSP(c) }
