package api

import (
	"errors"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/operations"
	"payments/pix/calendar"
	"payments/store"
	"payments/store/jsonw"
)

// batchItemBody is one item of a batch as the API shows it.
type batchItemBody struct {
	Position   int              `json:"position"`
	ExternalID *string          `json:"external_id"`
	Status     string           `json:"status"`
	PaymentID  *string          `json:"payment_id"`
	Error      *store.ItemError `json:"error"`
}

// batchBody is a batch as the API shows it.
type batchBody struct {
	ID          string          `json:"id"`
	Object      string          `json:"object"`
	Livemode    bool            `json:"livemode"`
	Description *string         `json:"description"`
	CreatedAt   string          `json:"created_at"`
	Counts      map[string]int  `json:"counts"`
	Items       []batchItemBody `json:"items"`
}

func batchJSON(b *store.PaymentBatch) batchBody {
	out := batchBody{ID: b.ID, Object: "payment_batch", Livemode: b.Livemode, Description: b.Description,
		CreatedAt: jsonw.FormatTime(b.CreatedAt), Counts: map[string]int{}, Items: make([]batchItemBody, len(b.Items))}
	for _, s := range store.BatchItemStatuses {
		out.Counts[s] = 0
	}
	for i := range b.Items {
		item := &b.Items[i]
		body := batchItemBody{Position: item.Position, ExternalID: item.ExternalID, Status: item.Status(), Error: item.Problem()}
		if item.PaymentID != nil {
			id := item.PaymentID.String()
			body.PaymentID = &id
		}
		out.Counts[body.Status]++
		out.Items[i] = body
	}
	return out
}

// CreatePaymentBatch handles POST /api/v1/payment_batches: {"payments":
// [create bodies, each with its external_id], "description"}. Each item
// is validated on its own, as POST /api/v1/payments validates a body (its
// errors name payments[i].field); a refused item does not stop the others.
func (a *API) CreatePaymentBatch(c *fiber.Ctx) error {
	o, apiErr := request.Body(c, "payments", "description")
	if apiErr != nil {
		return apiErr
	}
	if !o.Present("payments") {
		return o.Missing("payments")
	}
	var description *string
	if o.Present("description") {
		d, apiErr := o.Str("description", store.MaxDescription)
		if apiErr != nil {
			return apiErr
		}
		description = &d
	}
	objects, apiErr := o.Array("payments")
	if apiErr != nil {
		return apiErr
	}
	if len(objects) == 0 || len(objects) > store.MaxBatchItems {
		return reply.InvalidParam("parameter_invalid", "payments", "payments holds 1 to %d charges.", store.MaxBatchItems)
	}
	today := calendar.Today(a.Store.Now())
	items := make([]operations.NewBatchItem, len(objects))
	for i, item := range objects {
		items[i] = parseBatchItem(item, today)
	}
	key := request.APIKey(c)
	b, err := a.Ops.CreatePaymentBatch(c.UserContext(), request.Actor(c), key.Account, key.Livemode, description, items)
	if errors.Is(err, operations.ErrLiveModeOff) {
		return reply.LiveModeOff()
	}
	if err != nil {
		return err
	}
	c.Location("/api/v1/payment_batches/" + b.ID)
	return c.Status(http.StatusCreated).JSON(batchJSON(b))
}

// parseBatchItem reads one item: a create body that must name its
// external_id. A refused item echoes the external_id it was sent with,
// whatever else is wrong with it, when that is one.
func parseBatchItem(item request.Object, today calendar.Date) operations.NewBatchItem {
	refuse := func(e *reply.Error) operations.NewBatchItem {
		return operations.NewBatchItem{ExternalID: sentExternalID(item),
			Error: &store.ItemError{Type: e.Type, Code: e.Code, Param: e.Param, Message: e.Message}}
	}
	if apiErr := item.RejectUnknown(createPaymentFields...); apiErr != nil {
		return refuse(apiErr)
	}
	if !item.Present("external_id") {
		return refuse(reply.InvalidParam("parameter_missing", item.Param("external_id"),
			"Missing required parameter: %s. Each charge of a batch names its external_id.", item.Param("external_id")))
	}
	in, apiErr := parseCreatePayment(item, today)
	if apiErr != nil {
		return refuse(apiErr)
	}
	return operations.NewBatchItem{ExternalID: in.ExternalID, Payment: &in}
}

// sentExternalID is the item's external_id when it has a valid one.
func sentExternalID(item request.Object) *string {
	if !item.Present("external_id") {
		return nil
	}
	id, apiErr := item.Str("external_id", store.MaxExternalID)
	if apiErr != nil || !store.ExternalIDPattern.MatchString(id) {
		return nil
	}
	return &id
}

// GetPaymentBatch handles GET /api/v1/payment_batches/{id}: each item's
// status (created, registered at the PSP, or refused with its error).
func (a *API) GetPaymentBatch(c *fiber.Ctx) error {
	id := c.Params("id")
	b, err := a.Store.PaymentBatch(c.UserContext(), request.Scope(c), id)
	if errors.Is(err, store.ErrNotFound) {
		return reply.NoSuch("payment_batch", "id", id)
	}
	if err != nil {
		return err
	}
	return c.JSON(batchJSON(b))
}
