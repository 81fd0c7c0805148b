package handlers

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"payments/pix"
	"payments/store"
)

const (
	defaultListLimit = 10
	maxListLimit     = 100
)

// CreatePayment handles POST /api/v1/payments.
func (a *API) CreatePayment(c *fiber.Ctx) error {
	if apiErr := requireJSON(c); apiErr != nil {
		return apiErr
	}
	params, apiErr := parseCreatePayment(c.Body())
	if apiErr != nil {
		return apiErr
	}
	key := APIKey(c)
	at := a.Store.Instant()
	now, id := at.Truncate(time.Millisecond), store.NewPaymentID(at)
	txid := pix.NewTxID()
	brCode, err := pix.BRCode{
		Key:          a.Pix.Key,
		MerchantName: key.Account.Name,
		MerchantCity: a.Pix.City,
		AmountCents:  params.AmountCents,
		TxID:         txid,
		SingleUse:    true,
	}.Encode()
	if err != nil {
		return fmt.Errorf("create payment: %w", err)
	}
	p := &store.Payment{
		ID:            id,
		AccountID:     key.AccountID,
		Livemode:      key.Livemode,
		Status:        store.StatusPending,
		AmountCents:   params.AmountCents,
		Currency:      "BRL",
		PaymentMethod: "pix",
		Description:   params.Description,
		ExternalID:    params.ExternalID,
		Customer:      params.Customer,
		Metadata:      params.Metadata,
		CorrelationID: txid,
		FeeCents:      key.Account.Fee(params.AmountCents),
		BRCode:        brCode,
		QRCodeURL:     a.BaseURL + "/pay/" + id.String() + "/qr.png",
		CheckoutURL:   a.BaseURL + "/pay/" + id.String(),
		CreatedAt:     now,
		UpdatedAt:     now,
		ExpiresAt:     now.Add(time.Duration(params.ExpiresIn) * time.Second),
	}
	if err := a.Store.CreatePayment(c.UserContext(), p); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return &Error{Status: http.StatusConflict, Type: TypeInvalidRequest, Code: "external_id_taken", Param: "external_id",
				Message: fmt.Sprintf("A payment with external_id '%s' already exists.", *params.ExternalID)}
		}
		return err
	}
	c.Location("/api/v1/payments/" + id.String())
	return c.Status(http.StatusCreated).JSON(p)
}

// GetPayment handles GET /api/v1/payments/{id_or_external_id}.
func (a *API) GetPayment(c *fiber.Ctx) error {
	ref := pathRef(c, "ref")
	p, err := a.Store.Payment(c.UserContext(), scope(c), ref)
	if errors.Is(err, store.ErrNotFound) {
		return NoSuchPayment(ref)
	}
	if err != nil {
		return err
	}
	return c.JSON(p)
}

// CancelPayment handles DELETE /api/v1/payments/{id_or_external_id}.
func (a *API) CancelPayment(c *fiber.Ctx) error {
	ref := pathRef(c, "ref")
	p, err := a.Store.CancelPayment(c.UserContext(), scope(c), ref)
	var invalid *store.InvalidTransitionError
	switch {
	case errors.Is(err, store.ErrNotFound):
		return NoSuchPayment(ref)
	case errors.As(err, &invalid):
		return &Error{Status: http.StatusConflict, Type: TypeInvalidRequest, Code: "payment_not_cancelable",
			Message: fmt.Sprintf("This payment is %s; only pending payments can be canceled.", invalid.Status)}
	case err != nil:
		return err
	}
	return c.JSON(p)
}

var listPaymentsQuery = []string{"limit", "status", "created[gte]", "created[lte]", "starting_after", "ending_before"}

// ListPayments handles GET /api/v1/payments.
func (a *API) ListPayments(c *fiber.Ctx) error {
	params, apiErr := a.parseListPayments(c)
	if apiErr != nil {
		return apiErr
	}
	ctx := c.UserContext()
	for _, cursor := range []struct {
		name string
		id   *uuid.UUID
	}{{"starting_after", params.StartingAfter}, {"ending_before", params.EndingBefore}} {
		if cursor.id == nil {
			continue
		}
		ok, err := a.Store.PaymentExists(ctx, params.Scope, *cursor.id)
		if err != nil {
			return err
		}
		if !ok {
			return InvalidParam("resource_missing", cursor.name, "No such payment: '%s'", cursor.id)
		}
	}
	page, hasMore, err := a.Store.ListPayments(ctx, params)
	if err != nil {
		return err
	}
	return c.JSON(listBody[*store.Payment]{Object: "list", URL: "/api/v1/payments", HasMore: hasMore, Data: pointers(page)})
}

func (a *API) parseListPayments(c *fiber.Ctx) (store.PaymentListParams, *Error) {
	params := store.PaymentListParams{Scope: scope(c)}
	var apiErr *Error
	if params.Limit, params.Status, apiErr = parseListQuery(c, listPaymentsQuery, store.PaymentStatuses); apiErr != nil {
		return params, apiErr
	}
	for _, bound := range []struct {
		name string
		dst  **time.Time
	}{{"created[gte]", &params.CreatedGTE}, {"created[lte]", &params.CreatedLTE}} {
		v := c.Query(bound.name)
		if v == "" {
			continue
		}
		secs, err := strconv.ParseInt(v, 10, 64)
		if err != nil || secs < 0 || secs > 253402300799 { // up to 9999-12-31
			return params, InvalidParam("parameter_invalid", bound.name, "%s must be a Unix timestamp in seconds.", bound.name)
		}
		t := time.Unix(secs, 0).UTC()
		*bound.dst = &t
	}
	if params.CreatedLTE != nil {
		// created[lte] counts the whole second it names.
		end := params.CreatedLTE.Add(time.Second - time.Millisecond)
		params.CreatedLTE = &end
	}
	for _, cursor := range []struct {
		name string
		dst  **uuid.UUID
	}{{"starting_after", &params.StartingAfter}, {"ending_before", &params.EndingBefore}} {
		v := c.Query(cursor.name)
		if v == "" {
			continue
		}
		id, ok := store.ParsePaymentID(v)
		if !ok {
			return params, InvalidParam("parameter_invalid", cursor.name, "%s must be a payment id.", cursor.name)
		}
		*cursor.dst = &id
	}
	if params.StartingAfter != nil && params.EndingBefore != nil {
		return params, InvalidParam("parameter_invalid", "ending_before", "Use starting_after or ending_before, not both.")
	}
	return params, nil
}

// RefundPayment handles POST /api/v1/payments/{id_or_external_id}/refund: a
// paid payment is refunded in full.
func (a *API) RefundPayment(c *fiber.Ctx) error {
	ref := pathRef(c, "ref")
	p, err := a.Store.RefundPayment(c.UserContext(), scope(c), ref)
	var invalid *store.InvalidTransitionError
	switch {
	case errors.As(err, &invalid):
		return &Error{Status: http.StatusConflict, Type: TypeInvalidRequest, Code: "payment_not_refundable",
			Message: fmt.Sprintf("This payment is %s; only paid payments can be refunded.", invalid.Status)}
	case errors.Is(err, store.ErrPaymentDisputed):
		return InvalidRequest(http.StatusConflict, "payment_disputed",
			"This payment has an open dispute; its money is held until the dispute closes.")
	case errors.Is(err, store.ErrBalanceInsufficient):
		return balanceInsufficient()
	case err != nil:
		return transitionErr(err, ref, store.StatusRefunded)
	}
	return c.JSON(p)
}
