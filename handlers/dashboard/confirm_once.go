package dashboard

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"slices"
	"time"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/pix"
	"payments/store"
	"payments/views"
)

// A confirmation page that moves money carries a one-time token
// (confirm_token): the confirmed form does its work once, and the same
// form posted again (a double click, a reload, a second tab) shows what
// the first post did instead of moving the money again. The token is an
// idempotency key of the account and mode, kept as long as the API's.
const confirmTokenField = "confirm_token"

var confirmTokenPattern = regexp.MustCompile(`^[0-9A-Za-z]{24}$`)

// newConfirmToken is a fresh token for a confirmation page.
func newConfirmToken() views.Field {
	return views.Field{Name: confirmTokenField, Value: pix.RandomBase62(24)}
}

// confirmedOnce says the form was posted from its confirmation page with
// the page's token; without one it is asked again.
func confirmedOnce(c *fiber.Ctx) bool {
	return confirmed(c) && confirmTokenPattern.MatchString(c.FormValue(confirmTokenField))
}

// outcome is what a confirmed action did: the notice it leaves and the page
// it sends the person to. Replays of its token show the same.
type outcome struct {
	Notice   string `json:"notice"`
	Error    bool   `json:"error,omitempty"`
	Location string `json:"location"`
}

// confirmWait bounds how long a second post waits for the first, still
// running, to finish.
const confirmWait = 10 * time.Second

// once runs a confirmed action at most once per confirmation token, in the
// token's transaction (its writes and its remembered outcome commit
// together), and shows its outcome: the first time, and every time the
// same form comes back. back is the page of a refusal of the token itself.
func (d *Dashboard) once(c *fiber.Ctx, scope store.Scope, back string, action func(ctx context.Context) (outcome, error)) error {
	ctx := c.UserContext()
	key := "dashboard-confirm:" + c.FormValue(confirmTokenField)
	deadline := time.Now().Add(confirmWait)
	for {
		req, err := d.Store.BeginIdempotent(ctx, scope, key, formHash(c))
		switch {
		case errors.Is(err, store.ErrIdempotencyInFlight) && time.Now().Before(deadline):
			time.Sleep(50 * time.Millisecond)
			continue
		case errors.Is(err, store.ErrIdempotencyInFlight):
			return d.show(c, outcome{Notice: t(c, "confirm.in_progress"), Error: true, Location: back})
		case errors.Is(err, store.ErrIdempotencyMismatch):
			return d.show(c, outcome{Notice: t(c, "confirm.token_reused"), Error: true, Location: back})
		case err != nil:
			return err
		}
		if req.Replay != nil {
			req.Release()
			var first outcome
			if err := json.Unmarshal(req.Replay.ResponseBody, &first); err != nil {
				return err
			}
			return d.show(c, first)
		}
		done, err := action(req.Context(ctx))
		if err != nil {
			req.Release()
			return err
		}
		body, err := json.Marshal(done)
		if err != nil {
			req.Release()
			return err
		}
		if err := req.Finish(ctx, http.StatusSeeOther, body); err != nil {
			return err
		}
		return d.show(c, done)
	}
}

// refusal is the outcome of an action the store refused (a client error),
// in the person's words for its code; anything else is the request's error.
func refusal(c *fiber.Ctx, back string, err error) (outcome, error) {
	var apiErr *reply.Error
	// A change the person's role does not allow is the 403 page: no page
	// offered it, so only a forged or stale form asks.
	if errors.As(err, &apiErr) && apiErr.Status < http.StatusInternalServerError && apiErr.Code != "permission_denied" &&
		apiErr.Code != "step_up_required" {
		return outcome{Notice: views.ErrorText(c.UserContext(), apiErr.Code), Error: true, Location: back}, nil
	}
	return outcome{}, err
}

// show leaves an outcome's notice for the page it redirects to.
func (d *Dashboard) show(c *fiber.Ctx, o outcome) error {
	key := flashNotice
	if o.Error {
		key = flashNoticeErr
	}
	if err := d.setFlash(c, key, o.Notice); err != nil {
		return err
	}
	return c.Redirect(o.Location, http.StatusSeeOther)
}

// formHash names the request a token confirms: its path and its fields,
// but the CSRF token, which a reload may renew.
func formHash(c *fiber.Ctx) []byte {
	h := sha256.New()
	h.Write([]byte(c.Method() + "\n" + c.Path() + "\n"))
	var fields []string
	c.Request().PostArgs().VisitAll(func(k, v []byte) {
		if string(k) != "_csrf" {
			fields = append(fields, string(k)+"="+string(v))
		}
	})
	slices.Sort(fields)
	for _, f := range fields {
		h.Write([]byte(f + "\n"))
	}
	return h.Sum(nil)
}
