package psp

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/store"
)

// ReferencePattern is the PSP's id for a dispute.
var ReferencePattern = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,64}$`)

// NotifyDispute handles POST /psp/disputes: the PSP reports a PIX MED claim
// as it stands, {"id","endToEndId","reason","status"} and optionally the
// amount the payer's bank claims ("amount_cents", all that was received
// when absent). An unknown id opens a dispute on the payment the transfer
// paid; a known one moves to the status reported; the same status again
// changes nothing.
func (p *PSP) NotifyDispute(c *fiber.Ctx) error {
	o, apiErr := p.body(c, "id", "endToEndId", "reason", "status", "amount_cents")
	if apiErr != nil {
		return apiErr
	}
	var in store.PSPDispute
	if o.Present("amount_cents") {
		if in.AmountCents, apiErr = o.ClaimedCents("amount_cents"); apiErr != nil {
			return apiErr
		}
	}
	for _, f := range []struct {
		name string
		dst  *string
		ok   func(string) bool
		want string
	}{
		{"id", &in.Reference, ReferencePattern.MatchString, "1 to 64 letters, digits or _ . : -"},
		{"endToEndId", &in.EndToEndID, EndToEndIDPattern.MatchString, "32 letters and digits"},
		{"reason", &in.Reason, func(s string) bool { return slices.Contains(store.DisputeReasons, s) }, fmt.Sprint(store.DisputeReasons)},
		{"status", &in.Status, func(s string) bool { return slices.Contains(store.DisputeStatuses, s) }, fmt.Sprint(store.DisputeStatuses)},
	} {
		if !o.Present(f.name) {
			return o.Missing(f.name)
		}
		v, apiErr := o.Str(f.name, 64)
		if apiErr != nil {
			return apiErr
		}
		if !f.ok(v) {
			return reply.InvalidParam("parameter_invalid", f.name, "%s must be %s.", f.name, f.want)
		}
		*f.dst = v
	}
	d, duplicate, err := p.Ops.ApplyPSPDispute(c.UserContext(), in)
	var invalid *store.InvalidTransitionError
	switch {
	case errors.Is(err, store.ErrNotFound):
		return &reply.Error{Status: http.StatusNotFound, Type: reply.TypeInvalidRequest, Code: "resource_missing", Param: "endToEndId",
			Message: "No payment was paid by this endToEndId."}
	case errors.As(err, &invalid) && invalid.Object == "dispute":
		return reply.Dispute(err, in.Reference)
	case err != nil:
		return reply.OpenDispute(err, in.EndToEndID)
	}
	return c.JSON(resultJSON{ID: d.ID, Object: "dispute", Status: d.Status, Duplicate: duplicate})
}
