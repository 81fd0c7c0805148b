package api

import (
	"net/http"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/operations"
	"payments/store"
)

var createReportFields = []string{"type", "format", "csv_dialect", "from", "to"}

// CreateReport handles POST /api/v1/reports: a report of the key's
// account and mode over days of the account's time zone, built in the
// background.
func (a *API) CreateReport(c *fiber.Ctx) error {
	o, apiErr := request.Body(c, createReportFields...)
	if apiErr != nil {
		return apiErr
	}
	var asked request.ReportAsked
	for name, into := range map[string]*string{"type": &asked.Type, "format": &asked.Format,
		"csv_dialect": &asked.CSVDialect, "from": &asked.From, "to": &asked.To} {
		if o.Present(name) {
			if *into, apiErr = o.Str(name, 64); apiErr != nil {
				return apiErr
			}
		}
	}
	scope := request.Scope(c)
	acct, err := a.Store.Account(c.UserContext(), scope.AccountID)
	if err != nil {
		return err
	}
	in, apiErr := request.Report(asked, scope, acct.TimeZone, a.Store.Now())
	if apiErr != nil {
		return apiErr
	}
	r, err := a.Ops.CreateReport(c.UserContext(), request.Actor(c), in)
	if err != nil {
		return reply.Refusal(err)
	}
	return c.Status(http.StatusCreated).JSON(r)
}

// ListReports handles GET /api/v1/reports: the reports of the types the
// key may read, newest first.
func (a *API) ListReports(c *fiber.Ctx) error {
	params, err := parseIDList(c, "report", store.ReportStatuses, nil)
	if err != nil {
		return err
	}
	page, hasMore, err := a.Store.ListReports(c.UserContext(), params, operations.ReadableReportTypes(request.Actor(c)))
	if err != nil {
		return err
	}
	return c.JSON(listBody[*store.Report]{Object: "list", URL: "/api/v1/reports", HasMore: hasMore, Data: pointers(page)})
}

// GetReport handles GET /api/v1/reports/{id}.
func (a *API) GetReport(c *fiber.Ctx) error {
	r, err := a.report(c)
	if err != nil {
		return err
	}
	return c.JSON(r)
}

// ReportFile handles GET /api/v1/reports/{id}/file: the file_url.
func (a *API) ReportFile(c *fiber.Ctx) error {
	r, err := a.report(c)
	if err != nil {
		return err
	}
	return reply.ReportFile(c, a.Store, r)
}

func (a *API) report(c *fiber.Ctx) (*store.Report, error) {
	id, err := pathID(c, "id", func(id string) *reply.Error { return reply.NoSuch("report", "id", id) })
	if err != nil {
		return nil, err
	}
	r, err := a.Ops.ReadReport(c.UserContext(), request.Actor(c), request.Scope(c), id)
	if err != nil {
		return nil, reply.Report(err, id)
	}
	return r, nil
}
