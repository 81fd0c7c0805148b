package dashboard

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/operations"
	"payments/pix"
	"payments/store"
	"payments/views"
)

// PaymentLinks handles GET /dashboard/payment_links: the account's links,
// newest first, with what each does now and brought in.
func (d *Dashboard) PaymentLinks(c *fiber.Ctx) error {
	page, hasMore, err := d.Store.ListPaymentLinks(c.UserContext(), store.IDListParams{Scope: dashScope(c), Limit: dashPageSize,
		StartingAfter: c.Query("starting_after")})
	if err != nil {
		return err
	}
	m := views.PaymentLinksPage{Nav: d.nav(c, "payment_links"), CanCreate: may(c, operations.Payments)}
	now := d.Store.Now()
	for i := range page {
		l := &page[i]
		m.Rows = append(m.Rows, views.PaymentLinkRow{ID: l.ID, Description: l.Description, AmountLabel: linkAmount(c, l),
			Uses: linkUses(c, l), Received: pix.FormatBRL(l.ReceivedCents), Standing: l.Standing(now), CreatedAt: when(c, l.CreatedAt)})
	}
	if hasMore {
		m.NextURL = "/dashboard/payment_links?" + url.Values{"starting_after": {page[len(page)-1].ID}}.Encode()
	}
	return reply.Page(c, http.StatusOK, views.PaymentLinks(m))
}

// linkAmount is a link's fixed amount, or its range.
func linkAmount(c *fiber.Ctx, l *store.PaymentLink) string {
	if l.AmountCents != nil {
		return pix.FormatBRL(*l.AmountCents)
	}
	return t(c, "link_page.range", "Min", pix.FormatBRL(*l.MinAmountCents), "Max", pix.FormatBRL(*l.MaxAmountCents))
}

// linkUses is a link's paid uses, "of" its limit when it has one.
func linkUses(c *fiber.Ctx, l *store.PaymentLink) string {
	if l.MaxUses != nil {
		return t(c, "links.uses_of", "Uses", l.Uses, "Max", *l.MaxUses)
	}
	return strconv.FormatInt(l.Uses, 10)
}

// NewPaymentLink handles GET /dashboard/payment_links/new.
func (d *Dashboard) NewPaymentLink(c *fiber.Ctx) error {
	return reply.Page(c, http.StatusOK, views.PaymentLinkNew(views.PaymentLinkForm{Nav: d.nav(c, "payment_links"), Errors: map[string]string{}}))
}

// CreatePaymentLink handles POST /dashboard/payment_links: the API's
// rules (the operation's), each refusal beside its field in the person's
// words; it leads to the link's page, to copy and share.
func (d *Dashboard) CreatePaymentLink(c *fiber.Ctx) error {
	get := func(name string) string { return strings.TrimSpace(c.FormValue(name)) }
	f := views.PaymentLinkForm{Nav: d.nav(c, "payment_links"), Errors: map[string]string{}, Description: get("description"),
		AmountKind: get("amount_kind"), Amount: get("amount"), MinAmount: get("min_amount"), MaxAmount: get("max_amount"),
		MaxUses: get("max_uses"), Expires: get("expires"), CollectPayer: get("collect_payer") == "1", CollectEmail: get("collect_email") == "1"}
	in := operations.PaymentLinkInput{Description: f.Description, Collect: []string{}}
	money := func(field, typed string, dst **int64) {
		if typed == "" && field != "amount" {
			return
		}
		if cents, ok := pix.ParseBRL(typed); ok {
			*dst = &cents
		} else {
			f.Errors[field] = t(c, "form.amount_format")
		}
	}
	if f.AmountKind == "range" {
		money("min_amount", f.MinAmount, &in.MinAmountCents)
		money("max_amount", f.MaxAmount, &in.MaxAmountCents)
	} else {
		money("amount", f.Amount, &in.AmountCents)
	}
	if f.CollectPayer {
		in.Collect = append(in.Collect, store.CollectName, store.CollectDocument)
	}
	if f.CollectEmail {
		in.Collect = append(in.Collect, store.CollectEmail)
	}
	if f.MaxUses != "" {
		if n, err := strconv.ParseInt(f.MaxUses, 10, 64); err == nil {
			in.MaxUses = &n
		} else {
			f.Errors["max_uses"] = t(c, "links.error.max_uses")
		}
	}
	if !throughDay(c, f.Expires, &in.ExpiresAt) {
		f.Errors["expires"] = t(c, "links.error.expires_at")
	}
	if len(f.Errors) > 0 {
		return reply.Page(c, http.StatusUnprocessableEntity, views.PaymentLinkNew(f))
	}
	l, err := d.Ops.CreatePaymentLink(c.UserContext(), request.Actor(c), dashScope(c), in)
	if refused := map[string]string{}; refusedFields(c, err, refused) {
		for param, words := range refused {
			f.Errors[linkFormField[param]] = words
		}
		return reply.Page(c, http.StatusUnprocessableEntity, views.PaymentLinkNew(f))
	}
	if err != nil {
		return err
	}
	return d.noticeAndGo(c, t(c, "links.created"), "/dashboard/payment_links/"+l.ID)
}

// linkFormField is the form's field of each of the API's parameters.
var linkFormField = map[string]string{"description": "description", "amount_cents": "amount", "min_amount_cents": "min_amount",
	"max_amount_cents": "max_amount", "collect": "collect", "max_uses": "max_uses", "expires_at": "expires"}

// PaymentLinkDetail handles GET /dashboard/payment_links/{id}.
func (d *Dashboard) PaymentLinkDetail(c *fiber.Ctx) error {
	l, err := d.paymentLink(c)
	if err != nil {
		return err
	}
	now := d.Store.Now()
	m := views.PaymentLinkDetail{Nav: d.nav(c, "payment_links"), ID: l.ID, Description: l.Description, URL: l.URL(),
		QRCodeURL: l.URL() + "/qr.png", AmountLabel: linkAmount(c, l), Standing: l.Standing(now), Uses: linkUses(c, l),
		Received: pix.FormatBRL(l.ReceivedCents), Collects: linkCollects(c, l), CreatedAt: when(c, l.CreatedAt),
		PaymentsURL: "/dashboard/payments?" + url.Values{"payment_link": {l.ID}}.Encode(), DownloadName: "link-" + l.ID + ".png",
		CanDeactivate: l.Status == store.LinkActive && may(c, operations.Payments)}
	if l.Open > 0 {
		m.Open = strconv.FormatInt(l.Open, 10)
	}
	if l.ExpiresAt != nil {
		m.ExpiresAt = when(c, *l.ExpiresAt)
	}
	if m.Notice, err = d.takeNotice(c); err != nil {
		return err
	}
	return reply.Page(c, http.StatusOK, views.PaymentLinkDetailPage(m))
}

// linkCollects says in words what a link asks its payers.
func linkCollects(c *fiber.Ctx, l *store.PaymentLink) string {
	switch {
	case l.Collects(store.CollectEmail):
		return t(c, "links.collects_all")
	case l.Collects(store.CollectName):
		return t(c, "links.collects_payer")
	}
	return t(c, "links.collects_nothing")
}

// paymentLink is the account's link the path names, in the current mode.
func (d *Dashboard) paymentLink(c *fiber.Ctx) (*store.PaymentLink, error) {
	id := pathParam(c, "id")
	l, err := d.Store.PaymentLinkOf(c.UserContext(), dashScope(c), id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, reply.NoSuch("payment link", "id", id)
	}
	return l, err
}

// DeactivatePaymentLink handles POST /dashboard/payment_links/{id}/deactivate:
// its page takes no more payers.
func (d *Dashboard) DeactivatePaymentLink(c *fiber.Ctx) error {
	l, err := d.paymentLink(c)
	if err != nil {
		return err
	}
	if _, err := d.Ops.DeactivatePaymentLink(c.UserContext(), request.Actor(c), dashScope(c), l.ID); err != nil {
		return d.noticeOrErr(c, "/dashboard/payment_links/"+l.ID, err)
	}
	return d.noticeAndGo(c, t(c, "links.deactivated"), "/dashboard/payment_links/"+l.ID)
}

// throughDay reads a "takes payments through the day" input: the end of
// that day in the account's time zone into *end, none when left blank;
// false for a value that is no day.
func throughDay(c *fiber.Ctx, value string, end **time.Time) bool {
	if value == "" {
		return true
	}
	day, ok := localDay(c, value)
	if ok {
		next := day.AddDate(0, 0, 1)
		*end = &next
	}
	return ok
}
