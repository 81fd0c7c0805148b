package dashboard

import (
	"context"
	"encoding/csv"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/internal/spreadsheet"
	"payments/store"
	"payments/views"
)

// auditFilter reads the audit page's filter: dates are local days in the
// account's zone, until inclusive.
func (d *Dashboard) auditFilter(c *fiber.Ctx) (store.AuditFilter, views.AuditFilterForm, error) {
	form := views.AuditFilterForm{Actor: c.Query("actor"), Action: c.Query("action"), Object: strings.TrimSpace(c.Query("object")),
		Since: c.Query("since"), Until: c.Query("until")}
	f := store.AuditFilter{AccountID: dashScope(c).AccountID, Actor: form.Actor, Action: form.Action, ObjectID: form.Object}
	var err error
	if f.Since, f.Until, err = localDays(c, form.Since, form.Until); err != nil {
		return f, form, err
	}
	if before := c.Query("before"); before != "" {
		id, err := strconv.ParseInt(before, 10, 64)
		if err != nil || id <= 0 {
			return f, form, reply.InvalidParam("parameter_invalid", "before", "before must be a row number.")
		}
		f.Before = id
	}
	return f, form, nil
}

// Audit handles GET /dashboard/audit: the account's audit trail, filtered
// by person, action, object and dates, 50 rows a page.
func (d *Dashboard) Audit(c *fiber.Ctx) error {
	ctx := c.UserContext()
	f, form, err := d.auditFilter(c)
	if err != nil {
		return err
	}
	rows, more, err := d.Store.AuditTrail(ctx, f)
	if err != nil {
		return err
	}
	page := views.AuditPage{Nav: d.nav(c, "audit"), Filter: form, Rows: auditViews(c, rows)}
	if page.Actions, err = d.Store.AuditActions(ctx, f.AccountID); err != nil {
		return err
	}
	actors, err := d.Store.AuditActors(ctx, f.AccountID)
	if err != nil {
		return err
	}
	for _, a := range actors {
		page.Actors = append(page.Actors, views.Option{Value: a.Actor, Label: actorLabel(c.UserContext(), a)})
	}
	q := filterQuery(map[string]string{"actor": form.Actor, "action": form.Action, "object": form.Object, "since": form.Since, "until": form.Until})
	page.CSVURL = "/dashboard/audit.csv?" + q.Encode()
	if more {
		q.Set("before", strconv.FormatInt(rows[len(rows)-1].ID, 10))
		page.NextURL = "/dashboard/audit?" + q.Encode()
	}
	return reply.Page(c, http.StatusOK, views.Audit(page))
}

// AuditCSV handles GET /dashboard/audit.csv: what the filter holds (up to
// 10,000 rows), UTF-8 with a header, times in RFC 3339 (UTC).
func (d *Dashboard) AuditCSV(c *fiber.Ctx) error {
	f, _, err := d.auditFilter(c)
	if err != nil {
		return err
	}
	f.Limit = 10_000
	rows, _, err := d.Store.AuditTrail(c.UserContext(), f)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, "text/csv; charset=utf-8")
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="auditoria-`+f.AccountID+`.csv"`)
	c.Set(fiber.HeaderCacheControl, "no-store")
	w := csv.NewWriter(c.Response().BodyWriter())
	_ = w.Write([]string{"id", "created_at", "livemode", "action", "object_id", "actor", "actor_name", "door", "ip", "user_agent", "request_id", "changes"})
	for _, r := range rows {
		ip := ""
		if r.IP != nil {
			ip = *r.IP
		}
		_ = w.Write([]string{strconv.FormatInt(r.ID, 10), r.CreatedAt.UTC().Format(time.RFC3339), strconv.FormatBool(r.Livemode),
			r.Action, spreadsheet.Text(r.ObjectID), r.Actor, spreadsheet.Text(r.ActorName), r.Door, ip, spreadsheet.Text(r.UserAgent), r.RequestID, spreadsheet.Text(string(r.Changes))})
	}
	w.Flush()
	return w.Error()
}

func auditViews(c *fiber.Ctx, rows []store.AuditRow) []views.AuditView {
	out := make([]views.AuditView, 0, len(rows))
	for _, r := range rows {
		v := views.AuditView{At: when(c, r.CreatedAt), Action: r.Action, ActionLabel: actionLabel(c.UserContext(), r), ObjectID: r.ObjectID,
			Actor: actorLabel(c.UserContext(), r), Door: r.Door, UserAgent: r.UserAgent, RequestID: r.RequestID, Livemode: r.Livemode}
		if r.IP != nil {
			v.IP = *r.IP
		}
		if string(r.Changes) != "{}" {
			v.Changes = changesInWords(c.UserContext(), r.Action, r.Changes)
		}
		out = append(out, v)
	}
	return out
}

// actorLabel names who did it as people read it: a person's e-mail, a
// key's name and id, a command, the PSP, the service.
func actorLabel(ctx context.Context, r store.AuditRow) string {
	kind, id, _ := strings.Cut(r.Actor, ":")
	switch kind {
	case "user":
		return r.ActorName
	case "api_key":
		if r.ActorName != "" {
			return views.T(ctx, "audit.key_named", "Name", r.ActorName, "ID", id)
		}
		return views.T(ctx, "audit.key", "ID", id)
	case "admin":
		return "payments " + id
	}
	return views.Label(ctx, "actor", kind)
}

// objectHistory is an object's own audit rows, newest first, for its page.
func (d *Dashboard) objectHistory(c *fiber.Ctx, objectID string) ([]views.AuditView, error) {
	rows, _, err := d.Store.AuditTrail(c.UserContext(), store.AuditFilter{AccountID: dashScope(c).AccountID, ObjectID: objectID, Limit: 50})
	if err != nil {
		return nil, err
	}
	return auditViews(c, rows), nil
}
