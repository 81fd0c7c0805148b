package api

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/operations"
	"payments/pix"
	"payments/store"
)

var createSubscriptionFields = []string{"payer", "contract", "description", "interval", "start_date", "end_date",
	"amount_cents", "max_amount_cents", "retry_policy", "journey", "metadata", "splits"}

// CreateSubscription handles POST /api/v1/subscriptions: a Pix Automático
// recurrence for its payer to authorize.
func (a *API) CreateSubscription(c *fiber.Ctx) error {
	o, apiErr := request.Body(c, createSubscriptionFields...)
	if apiErr != nil {
		return apiErr
	}
	in, apiErr := parseCreateSubscription(o)
	if apiErr != nil {
		return apiErr
	}
	key := request.APIKey(c)
	sub, err := a.Ops.CreateSubscription(c.UserContext(), request.Actor(c), key.Account, key.Livemode, in)
	if err != nil {
		return subscriptionErr(err, "")
	}
	if sub.Livemode {
		// The PSP names the recurrence and makes its code: answered with
		// them when it does within the wait, else as created (GET it later).
		if sub, err = a.Store.WaitForRec(c.UserContext(), sub.ID, time.Now().Add(a.chargeWait())); err != nil {
			return err
		}
	}
	c.Location("/api/v1/subscriptions/" + sub.ID)
	return c.Status(http.StatusCreated).JSON(sub)
}

// parseCreateSubscription reads a create-subscription body's fields; their
// rules (dates, amounts, journey) are the operation's.
func parseCreateSubscription(o request.Object) (operations.NewSubscription, *reply.Error) {
	in := operations.NewSubscription{RetryPolicy: store.RetryNone, Metadata: map[string]string{}}
	for _, required := range []string{"payer", "contract", "interval", "start_date", "journey"} {
		if !o.Present(required) {
			return in, o.Missing(required)
		}
	}
	payer, apiErr := o.Object("payer")
	if apiErr != nil {
		return in, apiErr
	}
	if apiErr := payer.RejectUnknown("name", "document", "bank_account"); apiErr != nil {
		return in, apiErr
	}
	for _, required := range []string{"name", "document"} {
		if !payer.Present(required) {
			return in, payer.Missing(required)
		}
	}
	if in.Payer.Name, apiErr = payer.Str("name", 140); apiErr != nil {
		return in, apiErr
	}
	if in.Payer.Name = strings.TrimSpace(in.Payer.Name); in.Payer.Name == "" {
		return in, reply.InvalidParam("parameter_invalid", payer.Param("name"), "payer.name must not be blank.")
	}
	doc, apiErr := payer.Str("document", maxDocumentInput)
	if apiErr != nil {
		return in, apiErr
	}
	digits, _, ok := pix.NormalizeDocument(doc)
	if !ok {
		return in, reply.InvalidParam("document_invalid", payer.Param("document"),
			"payer.document must be a CPF (11 digits) or a CNPJ (14 characters, digits or letters, as in 12.ABC.345/01DE-35) with valid check digits.")
	}
	in.Payer.Document = digits
	if payer.Present("bank_account") {
		if in.Payer.BankAccount, apiErr = parseBankAccount(payer); apiErr != nil {
			return in, apiErr
		}
	}
	if in.Contract, apiErr = o.Str("contract", store.MaxContract); apiErr != nil {
		return in, apiErr
	}
	if o.Present("description") {
		d, apiErr := o.Str("description", store.MaxSubscriptionDescription)
		if apiErr != nil {
			return in, apiErr
		}
		in.Description = &d
	}
	if in.Interval, apiErr = o.Enum("interval", store.Intervals); apiErr != nil {
		return in, apiErr
	}
	if in.Journey, apiErr = o.Enum("journey", store.Journeys); apiErr != nil {
		return in, apiErr
	}
	if o.Present("retry_policy") {
		if in.RetryPolicy, apiErr = o.Enum("retry_policy", store.RetryPolicies); apiErr != nil {
			return in, apiErr
		}
	}
	if in.StartDate, apiErr = parseDate(o, "start_date"); apiErr != nil {
		return in, apiErr
	}
	if o.Present("end_date") {
		end, apiErr := parseDate(o, "end_date")
		if apiErr != nil {
			return in, apiErr
		}
		in.EndDate = &end
	}
	for _, name := range []string{"amount_cents", "max_amount_cents"} {
		if o.Present(name) {
			n, apiErr := optionalCents(o, name)
			if apiErr != nil {
				return in, apiErr
			}
			if name == "amount_cents" {
				in.AmountCents = n
			} else {
				in.MaxAmountCents = n
			}
		}
	}
	if o.Present("metadata") {
		if in.Metadata, apiErr = parseMetadata(o); apiErr != nil {
			return in, apiErr
		}
	}
	if o.Present("splits") {
		if in.Splits, apiErr = parseSplits(o); apiErr != nil {
			return in, apiErr
		}
	}
	return in, nil
}

// subscriptionErr maps the refusals of a subscription's operations.
func subscriptionErr(err error, id string) error {
	var refused *reply.Error
	if errors.As(reply.Refusal(err), &refused) {
		return refused
	}
	var invalid *store.InvalidTransitionError
	var problem *operations.SubscriptionProblem
	switch {
	case errors.As(err, &problem):
		return reply.InvalidParam("parameter_invalid", problem.Field, "%s", problem.Message)
	case errors.Is(err, store.ErrNotFound):
		return reply.NoSuch("subscription", "id", id)
	case errors.Is(err, operations.ErrFirstPaymentAmount):
		return reply.InvalidParam("parameter_invalid", "amount_cents",
			"The authorization_with_first_payment journey charges the first cycle: it needs amount_cents.")
	case errors.Is(err, operations.ErrCycleAmount):
		return reply.InvalidParam("parameter_invalid", "amount_cents",
			"A fixed subscription's cycle takes its amount; a variable one's needs amount_cents, at most its max_amount_cents.")
	case errors.Is(err, store.ErrCycleOpen):
		return reply.InvalidRequest(http.StatusConflict, "cycle_open", "The subscription's current cycle is still open: settle it first.")
	case errors.Is(err, store.ErrNoOpenCycle):
		return reply.InvalidRequest(http.StatusConflict, "no_open_cycle", "The subscription has no open cycle: create the next one first.")
	case errors.Is(err, store.ErrSubscriptionEnded):
		return reply.InvalidRequest(http.StatusConflict, "subscription_ended", "The subscription has no more cycles: its end date has passed.")
	case errors.As(err, &invalid):
		return reply.InvalidRequest(http.StatusConflict, "subscription_invalid_state", "This subscription is %s: it cannot do that.", invalid.Status)
	}
	return err
}

// GetSubscription handles GET /api/v1/subscriptions/{id}.
func (a *API) GetSubscription(c *fiber.Ctx) error {
	id := c.Params("id")
	sub, err := a.Store.Subscription(c.UserContext(), request.Scope(c), id)
	if err != nil {
		return subscriptionErr(err, id)
	}
	return c.JSON(sub)
}

var listSubscriptionsQuery = []string{"limit", "starting_after"}

// ListSubscriptions handles GET /api/v1/subscriptions: newest first.
func (a *API) ListSubscriptions(c *fiber.Ctx) error {
	limit, _, apiErr := parseListQuery(c, listSubscriptionsQuery, nil)
	if apiErr != nil {
		return apiErr
	}
	page, hasMore, err := a.Store.ListSubscriptions(c.UserContext(), request.Scope(c), limit, c.Query("starting_after"))
	if err != nil {
		return err
	}
	return c.JSON(listBody[*store.Subscription]{Object: "list", URL: "/api/v1/subscriptions", HasMore: hasMore, Data: pointers(page)})
}

// CancelSubscription handles POST /api/v1/subscriptions/{id}/cancel: the
// receiver ends it.
func (a *API) CancelSubscription(c *fiber.Ctx) error {
	if _, apiErr := request.OptionalBody(c); apiErr != nil {
		return apiErr
	}
	id := c.Params("id")
	sub, err := a.Ops.CancelSubscription(c.UserContext(), request.Actor(c), request.Scope(c), id)
	if err != nil {
		return subscriptionErr(err, id)
	}
	return c.JSON(sub)
}

// CreateCycle handles POST /api/v1/subscriptions/{id}/cycles: the next
// cycle, now (a variable subscription's, with its amount_cents).
func (a *API) CreateCycle(c *fiber.Ctx) error {
	o, apiErr := request.OptionalBody(c, "amount_cents")
	if apiErr != nil {
		return apiErr
	}
	amount, apiErr := optionalCents(o, "amount_cents")
	if apiErr != nil {
		return apiErr
	}
	id := c.Params("id")
	key := request.APIKey(c)
	p, err := a.Ops.CreateCycle(c.UserContext(), request.Actor(c), key.Account, request.Scope(c), id, amount)
	if err != nil {
		return subscriptionErr(err, id)
	}
	c.Location("/api/v1/payments/" + p.ID.String())
	return c.Status(http.StatusCreated).JSON(p)
}

// TestHelperAuthorize handles POST /api/v1/test_helpers/subscriptions/{id}/authorize.
func (a *API) TestHelperAuthorize(c *fiber.Ctx) error { return a.answerAuthorization(c, true) }

// TestHelperReject handles POST /api/v1/test_helpers/subscriptions/{id}/reject.
func (a *API) TestHelperReject(c *fiber.Ctx) error { return a.answerAuthorization(c, false) }

func (a *API) answerAuthorization(c *fiber.Ctx, approve bool) error {
	if _, apiErr := request.OptionalBody(c); apiErr != nil {
		return apiErr
	}
	id := c.Params("id")
	sub, err := a.Ops.SimulateAuthorization(c.UserContext(), request.Actor(c), request.Scope(c), id, approve)
	if err != nil {
		return subscriptionErr(err, id)
	}
	return c.JSON(sub)
}

// TestHelperPayerCancel handles POST /api/v1/test_helpers/subscriptions/{id}/payer_cancel:
// the payer cancels in their bank.
func (a *API) TestHelperPayerCancel(c *fiber.Ctx) error {
	if _, apiErr := request.OptionalBody(c); apiErr != nil {
		return apiErr
	}
	id := c.Params("id")
	sub, err := a.Ops.SimulatePayerCancel(c.UserContext(), request.Actor(c), request.Scope(c), id)
	if err != nil {
		return subscriptionErr(err, id)
	}
	return c.JSON(sub)
}

// TestHelperRunCycle handles POST /api/v1/test_helpers/subscriptions/{id}/run_cycle:
// {"outcome": "pay" | "insufficient_balance"}: the payer's bank settles the
// open cycle's attempt (making the next cycle first when none is open).
func (a *API) TestHelperRunCycle(c *fiber.Ctx) error {
	o, apiErr := request.OptionalBody(c, "outcome", "amount_cents")
	if apiErr != nil {
		return apiErr
	}
	outcome := operations.CyclePay
	if o.Present("outcome") {
		if outcome, apiErr = o.Enum("outcome", operations.CycleOutcomes); apiErr != nil {
			return apiErr
		}
	}
	amount, apiErr := optionalCents(o, "amount_cents")
	if apiErr != nil {
		return apiErr
	}
	id := c.Params("id")
	p, err := a.Ops.SimulateCycle(c.UserContext(), request.Actor(c), request.APIKey(c).Account, request.Scope(c), id, outcome, amount)
	if err != nil {
		return subscriptionErr(err, id)
	}
	return c.JSON(p)
}

// parseBankAccount reads payer.bank_account: the payer's bank (its ISPB),
// branch (optional) and account number; their format is the operation's rule.
func parseBankAccount(payer request.Object) (*store.BankAccount, *reply.Error) {
	o, apiErr := payer.Object("bank_account")
	if apiErr != nil {
		return nil, apiErr
	}
	if apiErr := o.RejectUnknown("ispb", "branch", "number"); apiErr != nil {
		return nil, apiErr
	}
	for _, required := range []string{"ispb", "number"} {
		if !o.Present(required) {
			return nil, o.Missing(required)
		}
	}
	var b store.BankAccount
	if b.ISPB, apiErr = o.Str("ispb", 8); apiErr != nil {
		return nil, apiErr
	}
	if o.Present("branch") {
		if b.Branch, apiErr = o.Str("branch", 4); apiErr != nil {
			return nil, apiErr
		}
	}
	if b.Number, apiErr = o.Str("number", 20); apiErr != nil {
		return nil, apiErr
	}
	return &b, nil
}
