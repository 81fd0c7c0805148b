package dashboard

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/internal/spreadsheet"
	"payments/operations"
	"payments/store"
	"payments/views"
)

// batchColumns are a batch CSV's columns: the new-charge form's fields.
var batchColumns = []string{"external_id", "amount", "description", "customer_name", "customer_email", "customer_document",
	"due_date", "days_after_due", "fine_kind", "fine_value", "interest_kind", "interest_value", "interest_business_days",
	"discount_kind", "discount_value", "discount_until", "discount_business_days", "abatement_kind", "abatement_value"}

// batchExample is the template's example row.
var batchExample = []string{"mensalidade-2026-03-ana", "450,00", "Mensalidade de março", "Ana Lima", "ana@example.com", "529.982.247-25",
	"2026-12-10", "30", "percent", "2,00", "percent_per_month", "1,00", "0", "percent", "5,00", "2026-12-05", "0", "", ""}

// Batches handles GET /dashboard/payment_batches: the batches sent, and
// the form that sends a CSV of charges.
func (d *Dashboard) Batches(c *fiber.Ctx) error {
	return d.batchesPage(c, http.StatusOK, "")
}

func (d *Dashboard) batchesPage(c *fiber.Ctx, status int, problem string) error {
	batches, err := d.Store.ListPaymentBatches(c.UserContext(), dashScope(c), 50)
	if err != nil {
		return err
	}
	m := views.BatchesPage{Nav: d.nav(c, "payments"), Error: problem, CanCreate: may(c, operations.Payments), Columns: batchColumns}
	for _, b := range batches {
		row := views.BatchRow{ID: b.ID, CreatedAt: when(c, b.CreatedAt), Items: b.ItemCount}
		if b.Description != nil {
			row.Description = *b.Description
		}
		m.Batches = append(m.Batches, row)
	}
	return reply.Page(c, status, views.Batches(m))
}

// BatchTemplate handles GET /dashboard/payment_batches/template.csv: the
// columns, and a row to copy.
func (d *Dashboard) BatchTemplate(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentType, "text/csv; charset=utf-8")
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="modelo-lote-cobrancas.csv"`)
	w := csv.NewWriter(c.Response().BodyWriter())
	_ = w.Write(batchColumns)
	_ = w.Write(batchExample)
	w.Flush()
	return w.Error()
}

// CreateBatch handles POST /dashboard/payment_batches: a CSV of up to
// store.MaxBatchItems charges (commas or semicolons, as spreadsheets in
// Brazil write them), each row checked as the new-charge form checks it
// and created on its own (operations.CreatePaymentBatch).
func (d *Dashboard) CreateBatch(c *fiber.Ctx) error {
	file, err := c.FormFile("file")
	if err != nil {
		return d.batchesPage(c, http.StatusUnprocessableEntity, t(c, "batch.error.no_file"))
	}
	f, err := file.Open()
	if err != nil {
		return err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, 8<<20))
	if err != nil {
		return err
	}
	rows, problem := readBatchCSV(c, raw)
	if problem != "" {
		return d.batchesPage(c, http.StatusUnprocessableEntity, problem)
	}
	items := make([]operations.NewBatchItem, len(rows))
	for i, row := range rows {
		items[i] = d.batchItem(c, i, row)
	}
	scope := dashScope(c)
	acct, err := d.Store.Account(c.UserContext(), scope.AccountID)
	if err != nil {
		return err
	}
	var description *string
	if name := strings.TrimSpace(c.FormValue("description")); name != "" {
		description = &name
	} else {
		description = &file.Filename
	}
	b, err := d.Ops.CreatePaymentBatch(c.UserContext(), request.Actor(c), acct, scope.Livemode, description, items)
	switch {
	case errors.Is(err, operations.ErrLiveModeOff):
		return d.batchesPage(c, http.StatusUnprocessableEntity, t(c, "error.live_mode_disabled"))
	case err != nil:
		return err
	}
	return c.Redirect("/dashboard/payment_batches/"+b.ID, http.StatusSeeOther)
}

// readBatchCSV reads the file's rows as column -> value, or says what is
// wrong with it.
func readBatchCSV(c *fiber.Ctx, raw []byte) ([]map[string]string, string) {
	raw = bytes.TrimPrefix(raw, []byte("\uFEFF")) // Excel's byte order mark
	header, _, _ := bytes.Cut(raw, []byte("\n"))
	r := csv.NewReader(bytes.NewReader(raw))
	if bytes.Count(header, []byte(";")) > bytes.Count(header, []byte(",")) {
		r.Comma = ';'
	}
	r.FieldsPerRecord = -1
	records, err := r.ReadAll()
	if err != nil {
		return nil, t(c, "batch.error.csv", "Problem", err.Error())
	}
	if len(records) < 2 {
		return nil, t(c, "batch.error.empty")
	}
	columns := records[0]
	for i := range columns {
		columns[i] = strings.ToLower(strings.TrimSpace(columns[i]))
		if !slices.Contains(batchColumns, columns[i]) {
			return nil, t(c, "batch.error.column", "Column", columns[i])
		}
	}
	if !slices.Contains(columns, "amount") || !slices.Contains(columns, "external_id") {
		return nil, t(c, "batch.error.required_columns")
	}
	if len(records)-1 > store.MaxBatchItems {
		return nil, t(c, "batch.error.too_many", "Max", store.MaxBatchItems)
	}
	rows := make([]map[string]string, 0, len(records)-1)
	for _, rec := range records[1:] {
		row := map[string]string{}
		for i, v := range rec {
			if i < len(columns) {
				row[columns[i]] = v
			}
		}
		rows = append(rows, row)
	}
	return rows, ""
}

// batchItem checks row i as the new-charge form is checked.
func (d *Dashboard) batchItem(c *fiber.Ctx, i int, row map[string]string) operations.NewBatchItem {
	form := chargeFields(func(name string) string { return row[name] })
	in, ok := d.readPaymentForm(c, &form)
	if form.ExternalID == "" {
		ok = false
		form.Errors["external_id"] = t(c, "batch.error.external_id")
	}
	item := operations.NewBatchItem{ExternalID: in.ExternalID}
	if ok {
		item.Payment = &in
		return item
	}
	fields := make([]string, 0, len(form.Errors))
	for field := range form.Errors {
		fields = append(fields, field)
	}
	slices.Sort(fields)
	item.Error = &store.ItemError{Type: "invalid_request_error", Code: views.RowInvalid,
		Param: fmt.Sprintf("payments[%d].%s", i, fields[0]), Message: form.Errors[fields[0]]}
	return item
}

// Batch handles GET /dashboard/payment_batches/{id}: each row's outcome.
func (d *Dashboard) Batch(c *fiber.Ctx) error {
	b, err := d.batch(c)
	if err != nil {
		return err
	}
	m := views.BatchPage{Nav: d.nav(c, "payments"), ID: b.ID, CreatedAt: when(c, b.CreatedAt), Counts: map[string]int{},
		Statuses: store.BatchItemStatuses}
	if b.Description != nil {
		m.Description = *b.Description
	}
	for _, item := range b.Items {
		row := batchRow(item)
		m.Counts[row.Status]++
		m.Items = append(m.Items, row)
	}
	// Live charges become registered as the PSP answers: the page follows.
	m.Nav.Pending = m.Counts[store.BatchItemCreated] > 0 && b.Livemode
	return reply.Page(c, http.StatusOK, views.Batch(m))
}

func batchRow(item store.PaymentBatchItem) views.BatchItemRow {
	row := views.BatchItemRow{Row: item.Position + 2, Status: item.Status()} // the CSV's line: after its header
	if item.ExternalID != nil {
		row.ExternalID = *item.ExternalID
	}
	if item.PaymentID != nil {
		row.PaymentID = item.PaymentID.String()
	}
	if e := item.Problem(); e != nil {
		row.Error, row.ErrorCode, row.ErrorParam = e.Message, e.Code, e.Param
	}
	return row
}

// BatchCSV handles GET /dashboard/payment_batches/{id}/outcome.csv: each
// row's outcome, to keep or to fix and send again.
func (d *Dashboard) BatchCSV(c *fiber.Ctx) error {
	b, err := d.batch(c)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, "text/csv; charset=utf-8")
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="lote-`+b.ID+`.csv"`)
	c.Set(fiber.HeaderCacheControl, "no-store")
	w := csv.NewWriter(c.Response().BodyWriter())
	_ = w.Write([]string{"line", "external_id", "status", "payment_id", "error"})
	for _, item := range b.Items {
		row := batchRow(item)
		_ = w.Write([]string{strconv.Itoa(row.Row), spreadsheet.Text(row.ExternalID), row.Status, row.PaymentID, spreadsheet.Text(row.Error)})
	}
	w.Flush()
	return w.Error()
}

func (d *Dashboard) batch(c *fiber.Ctx) (*store.PaymentBatch, error) {
	id := pathParam(c, "id")
	b, err := d.Store.PaymentBatch(c.UserContext(), dashScope(c), id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, reply.NoSuch("payment_batch", "id", id)
	}
	return b, err
}
