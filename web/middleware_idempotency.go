package web

import (
	"crypto/sha256"
	"errors"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/store"
)

const (
	headerIdempotencyKey     = "Idempotency-Key"
	headerIdempotentReplayed = "Idempotent-Replayed"
	maxIdempotencyKeyLength  = 255
)

// idempotency makes a POST carrying Idempotency-Key run at most once per key
// (per account and mode, for 24h). The request runs inside the key's
// transaction, so its writes and its remembered response commit together.
//
// A request for which ownKey is true keeps the key itself: the middleware
// only checks the key and records it with the request's hash
// (request.IdempotencyOf). A live creation does, because it waits seconds
// for the PSP: holding a transaction (a connection) that long per request
// would let concurrent creations take every connection while each needs
// one more, and its payment carries the key instead (store.CreateLivePayment).
func idempotency(st *store.Store, ownKey func(*fiber.Ctx) bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		key := c.Get(headerIdempotencyKey)
		if c.Method() != fiber.MethodPost || key == "" {
			return c.Next()
		}
		if len(key) > maxIdempotencyKeyLength {
			return &reply.Error{Status: http.StatusBadRequest, Type: reply.TypeIdempotency, Code: "idempotency_key_invalid",
				Message: "The Idempotency-Key header must be at most 255 characters."}
		}
		k := request.APIKey(c)
		h := sha256.New()
		h.Write([]byte(c.Method() + "\n" + c.OriginalURL() + "\n"))
		h.Write(c.Body())
		ctx := c.UserContext()
		key = string([]byte(key))
		hash := h.Sum(nil)
		request.SetIdempotency(c, key, hash)
		if ownKey(c) {
			return c.Next()
		}
		req, err := st.BeginIdempotent(ctx, store.Scope{AccountID: k.AccountID, Livemode: k.Livemode}, key, hash)
		switch {
		case errors.Is(err, store.ErrIdempotencyInFlight):
			return &reply.Error{Status: http.StatusConflict, Type: reply.TypeIdempotency, Code: "idempotency_key_in_use",
				Message: "A request with this Idempotency-Key is still being processed. Retry after it finishes."}
		case errors.Is(err, store.ErrIdempotencyMismatch):
			return &reply.Error{Status: http.StatusUnprocessableEntity, Type: reply.TypeIdempotency, Code: "idempotency_key_reused",
				Message: "This Idempotency-Key was already used with a different request. Use a new key for a new request."}
		case err != nil:
			return err
		}
		finished := false
		defer func() {
			if !finished {
				req.Release() // a panic or an early return must not leave the transaction open
			}
		}()
		if req.Replay != nil {
			c.Set(headerIdempotentReplayed, "true")
			c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
			return c.Status(req.Replay.ResponseStatus).Send(req.Replay.ResponseBody)
		}

		c.SetUserContext(req.Context(ctx))
		handlerErr := c.Next()
		if handlerErr != nil {
			if herr := c.App().ErrorHandler(c, handlerErr); herr != nil {
				return herr
			}
		}
		c.SetUserContext(ctx)
		status := c.Response().StatusCode()
		var apiErr *reply.Error
		if status >= http.StatusInternalServerError || (errors.As(handlerErr, &apiErr) && apiErr.Type == reply.TypeIdempotency) {
			// Not remembered: a retry with the same key runs again. A key
			// the handler found bound to another request (a live creation
			// still at the PSP) stays bound to that one.
			return nil
		}
		body := append([]byte(nil), c.Response().Body()...)
		finished = true
		if err := req.Finish(ctx, status, body); err != nil {
			// Nothing the handler wrote was committed: the client must learn that.
			return err
		}
		return nil
	}
}
