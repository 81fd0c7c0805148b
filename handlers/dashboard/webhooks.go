package dashboard

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"payments/dispatcher"
	"payments/dispatcher/envelope"
	"payments/dispatcher/signature"
	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/operations"
	"payments/pix"
	"payments/store"
	"payments/store/ids"
	"payments/views"
)

// healthWindow is how far back a webhook's health looks.
const healthWindow = 24 * time.Hour

func webhookRow(c *fiber.Ctx, w *store.Webhook, last *store.Delivery, health store.WebhookHealth) views.WebhookRow {
	row := views.WebhookRow{ID: w.ID, Name: w.Name, URL: w.URL, Events: w.Events, Enabled: w.Enabled, SuccessRate: health.SuccessRate()}
	if w.DisabledReason != nil {
		row.Disabled = *w.DisabledReason
	}
	if last != nil {
		row.LastOutcome, row.LastAt = last.Status, when(c, last.UpdatedAt)
	}
	if w.FailingSince != nil {
		row.FailingSince = when(c, *w.FailingSince)
	}
	return row
}

// Webhooks handles GET /dashboard/webhooks: each webhook of the mode with
// its health, and the cap explained for both modes.
func (d *Dashboard) Webhooks(c *fiber.Ctx) error {
	ctx := c.UserContext()
	scope := dashScope(c)
	hooks, err := d.Store.Webhooks(ctx, scope)
	if err != nil {
		return err
	}
	ids := make([]string, len(hooks))
	for i := range hooks {
		ids[i] = hooks[i].ID
	}
	last, err := d.Store.LastDeliveries(ctx, ids)
	if err != nil {
		return err
	}
	health, err := d.Store.WebhooksHealth(ctx, ids, d.Store.Now().Add(-healthWindow))
	if err != nil {
		return err
	}
	test, live, err := d.Store.CountWebhooksByMode(ctx, scope.AccountID)
	if err != nil {
		return err
	}
	page := views.WebhooksPage{Nav: d.nav(c, "webhooks"), CountTest: test, CountLive: live, Max: store.MaxWebhooksPerAccount,
		AtTheCap: test+live >= store.MaxWebhooksPerAccount}
	for i := range hooks {
		var l *store.Delivery
		if dl, ok := last[hooks[i].ID]; ok {
			l = &dl
		}
		page.Rows = append(page.Rows, webhookRow(c, &hooks[i], l, health[hooks[i].ID]))
		if r := hooks[i].DisabledReason; r != nil && *r != store.DisabledManual {
			page.AutoDisabled++
		}
	}
	return reply.Page(c, http.StatusOK, views.Webhooks(page))
}

func (d *Dashboard) webhookForm(c *fiber.Ctx) (views.WebhookForm, error) {
	count, err := d.Store.CountWebhooks(c.UserContext(), dashScope(c).AccountID)
	if err != nil {
		return views.WebhookForm{}, err
	}
	acct, err := d.Store.Account(c.UserContext(), dashScope(c).AccountID)
	if err != nil {
		return views.WebhookForm{}, err
	}
	return views.WebhookForm{
		Nav: d.nav(c, "webhooks"), APIVersion: "v2", Events: []string{store.EventPaymentPaid}, AllEvents: store.EventTypes,
		Errors: map[string]string{}, AtTheCap: count >= store.MaxWebhooksPerAccount, Max: store.MaxWebhooksPerAccount,
		PaymentsVersion: acct.PaymentsVersion, Versions: versionChoices(),
	}, nil
}

// NewWebhook handles GET /dashboard/webhooks/new (its route asks the
// Rulebook first: no one is shown a form they cannot submit).
func (d *Dashboard) NewWebhook(c *fiber.Ctx) error {
	form, err := d.webhookForm(c)
	if err != nil {
		return err
	}
	return reply.Page(c, http.StatusOK, views.WebhookNew(form))
}

// readWebhookForm fills form from the posted fields, leaving beside its
// field what cannot be read (the rules are the operation's, see
// refusedFields); it returns the secret and the rate limit (0: none).
func (d *Dashboard) readWebhookForm(c *fiber.Ctx, form *views.WebhookForm) (secret string, rateLimit int) {
	form.Name = strings.TrimSpace(c.FormValue("name"))
	form.URL = strings.TrimSpace(c.FormValue("url"))
	form.APIVersion = c.FormValue("api_version")
	form.RateLimit = strings.TrimSpace(c.FormValue("rate_limit"))
	form.Ordered = c.FormValue("ordered") == "true"
	form.ForwardTrace = c.FormValue("forward_trace") == "true"
	if v := c.FormValue("payments_version"); v != "" {
		form.PaymentsVersion = v
	}
	form.Filter = strings.TrimSpace(c.FormValue("filter"))
	form.RemoveMTLS = c.FormValue("mtls_remove") == "true"
	form.Signature = c.FormValue("signature_algorithm")
	if form.Signature == "" {
		form.Signature = store.SignatureHMAC
	}
	if form.APIVersion == "" {
		form.APIVersion = store.APIVersions[0] // as the API: v2 unless asked
	}
	form.Events = nil
	if mf, err := c.MultipartForm(); err == nil { // the form as browsers send it (its PEM files)
		form.Events = append(form.Events, mf.Value["events"]...)
	} else {
		for _, e := range c.Context().PostArgs().PeekMulti("events") {
			form.Events = append(form.Events, string(e))
		}
	}
	if form.RateLimit != "" {
		n, err := strconv.Atoi(form.RateLimit)
		if err != nil || n < 1 { // empty is "no limit": 0 is not a way to say it
			form.Errors["rate_limit"] = t(c, "form.rate_limit", "Max", store.MaxRateLimit)
		}
		rateLimit = n
	}
	return c.FormValue("secret"), rateLimit
}

// webhookRefused shows the operation's refusal of the form beside its
// fields; false when err is no refusal of an input. A choice the service
// does not have goes back to its default, so the page shows one chosen.
func webhookRefused(c *fiber.Ctx, err error, form *views.WebhookForm) bool {
	if certificateProblem(c, err, form) {
		return true
	}
	if !refusedFields(c, err, form.Errors) {
		return false
	}
	if _, bad := form.Errors["api_version"]; bad {
		form.APIVersion = store.APIVersions[0]
	}
	if _, bad := form.Errors["signature_algorithm"]; bad {
		form.Signature = store.SignatureHMAC
	}
	return true
}

// CreateWebhook handles POST /dashboard/webhooks: the same rules as the
// API, with errors shown beside their fields.
func (d *Dashboard) CreateWebhook(c *fiber.Ctx) error {
	form, err := d.webhookForm(c)
	if err != nil {
		return err
	}
	secret, rate := d.readWebhookForm(c, &form)
	mtls := readMTLSFiles(c, &form)
	if len(form.Errors) > 0 || form.AtTheCap {
		return reply.Page(c, http.StatusUnprocessableEntity, views.WebhookNew(form))
	}
	in := store.NewWebhook{
		Scope: dashScope(c), Name: form.Name, URL: form.URL, APIVersion: form.APIVersion, Events: form.Events, Enabled: true,
		Signing: store.SigningSecret{Algorithm: form.Signature, Secret: secret}, Ordered: form.Ordered, ForwardTrace: form.ForwardTrace, MTLS: mtls,
		PaymentsVersion: form.PaymentsVersion,
		RateLimit:       &rate, Filter: &form.Filter,
	}
	w, secret, err := d.Ops.CreateWebhook(c.UserContext(), request.Actor(c), in)
	if errors.Is(err, store.ErrWebhookLimit) {
		form.AtTheCap = true
		return reply.Page(c, http.StatusUnprocessableEntity, views.WebhookNew(form))
	}
	if webhookRefused(c, err, &form) {
		return reply.Page(c, http.StatusUnprocessableEntity, views.WebhookNew(form))
	}
	if err != nil {
		return err
	}
	return d.revealOnce(c, w.ID, secret)
}

// postedVersion is the version the form chose, nil when it sent none (the
// webhook keeps its own).
func postedVersion(c *fiber.Ctx, version string) *string {
	if c.FormValue("payments_version") == "" {
		return nil
	}
	return &version
}

// EditWebhook handles GET /dashboard/webhooks/{id}/edit.
func (d *Dashboard) EditWebhook(c *fiber.Ctx) error {
	w, err := d.webhook(c)
	if err != nil {
		return err
	}
	form, err := d.webhookForm(c)
	if err != nil {
		return err
	}
	form.EditID, form.Name, form.URL, form.APIVersion, form.Events = w.ID, w.Name, w.URL, w.APIVersion, w.Events
	form.Ordered, form.ForwardTrace, form.PaymentsVersion = w.Ordered, w.ForwardTrace, w.PaymentsVersion
	if w.Filter != nil {
		form.Filter = *w.Filter
	}
	form.HasMTLS = w.MTLSCertificate != nil || w.MTLSServerCA != nil
	if w.RateLimit != nil {
		form.RateLimit = strconv.Itoa(*w.RateLimit)
	}
	return reply.Page(c, http.StatusOK, views.WebhookNew(form))
}

// UpdateWebhook handles POST /dashboard/webhooks/{id}/edit.
func (d *Dashboard) UpdateWebhook(c *fiber.Ctx) error {
	w, err := d.webhook(c)
	if err != nil {
		return err
	}
	form, err := d.webhookForm(c)
	if err != nil {
		return err
	}
	form.EditID = w.ID
	_, rate := d.readWebhookForm(c, &form)
	if form.Events == nil {
		form.Events = []string{} // none ticked: the operation refuses it, where nil would keep the old ones
	}
	mtls := readMTLSFiles(c, &form)
	if len(form.Errors) > 0 {
		return reply.Page(c, http.StatusUnprocessableEntity, views.WebhookNew(form))
	}
	_, err = d.Ops.UpdateWebhook(c.UserContext(), request.Actor(c), dashScope(c), w.ID, store.WebhookUpdate{
		Name: &form.Name, URL: &form.URL, APIVersion: &form.APIVersion, Events: form.Events, RateLimit: &rate,
		Ordered: &form.Ordered, ForwardTrace: &form.ForwardTrace, Filter: &form.Filter, PaymentsVersion: postedVersion(c, form.PaymentsVersion),
		MTLS: mtls, RemoveMTLS: form.RemoveMTLS && mtls == nil,
	})
	if webhookRefused(c, err, &form) {
		form.HasMTLS = w.MTLSCertificate != nil || w.MTLSServerCA != nil
		return reply.Page(c, http.StatusUnprocessableEntity, views.WebhookNew(form))
	}
	if err != nil {
		return err
	}
	return d.noticeAndGo(c, t(c, "webhook.saved"), "/dashboard/webhooks/"+w.ID)
}

// noticeAndGo leaves notice for the next page and goes there.
func (d *Dashboard) noticeAndGo(c *fiber.Ctx, notice, to string) error {
	return d.show(c, outcome{Notice: notice, Location: to})
}

// revealOnce keeps the new secret for the next view of the webhook's page
// only, then redirects there: a reload no longer shows it.
func (d *Dashboard) revealOnce(c *fiber.Ctx, webhookID, secret string) error {
	if err := d.setFlash(c, "reveal:"+webhookID, secret); err != nil {
		return err
	}
	return c.Redirect("/dashboard/webhooks/"+webhookID, http.StatusSeeOther)
}

// setFlash keeps a value in the session for the next takeFlash only.
func (d *Dashboard) setFlash(c *fiber.Ctx, key, value string) error {
	sess, err := d.Sessions.Get(c)
	if err != nil {
		return err
	}
	sess.Set(key, value)
	return sess.Save()
}

// takeFlash returns a value setFlash kept, and forgets it.
func (d *Dashboard) takeFlash(c *fiber.Ctx, key string) (string, error) {
	sess, err := d.Sessions.Get(c)
	if err != nil {
		return "", err
	}
	value, _ := sess.Get(key).(string)
	if value == "" {
		return "", nil
	}
	sess.Delete(key)
	return value, sess.Save()
}

func (d *Dashboard) webhook(c *fiber.Ctx) (*store.Webhook, error) {
	id := pathParam(c, "id")
	w, err := d.Store.Webhook(c.UserContext(), dashScope(c), id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, reply.NoSuch("webhook", "id", id)
	}
	return w, err
}

// WebhookDetail handles GET /dashboard/webhooks/{id}: the webhook, its
// health and its delivery console.
func (d *Dashboard) WebhookDetail(c *fiber.Ctx) error {
	w, err := d.webhook(c)
	if err != nil {
		return err
	}
	page, err := d.webhookDetail(c, w)
	if err != nil {
		return err
	}
	if page.History, err = d.objectHistory(c, w.ID); err != nil {
		return err
	}
	if page.Replays, err = d.replayViews(c, w); err != nil {
		return err
	}
	return reply.Page(c, http.StatusOK, views.WebhookDetailPage(page))
}

// webhookDetail builds w's page, taking the one-time secret if one waits.
func (d *Dashboard) webhookDetail(c *fiber.Ctx, w *store.Webhook) (views.WebhookDetail, error) {
	ctx := c.UserContext()
	secret, err := d.takeFlash(c, "reveal:"+w.ID)
	if err != nil {
		return views.WebhookDetail{}, err
	}
	notice, err := d.takeNotice(c)
	if err != nil {
		return views.WebhookDetail{}, err
	}
	now := d.Store.Now()
	health, err := d.Store.WebhooksHealth(ctx, []string{w.ID}, now.Add(-healthWindow))
	if err != nil {
		return views.WebhookDetail{}, err
	}
	h := health[w.ID]
	backlog, err := d.Store.Backlog(ctx, w.ID, now)
	if err != nil {
		return views.WebhookDetail{}, err
	}
	page := views.WebhookDetail{
		Nav: d.nav(c, "webhooks"), Webhook: webhookRow(c, w, nil, h), APIVersion: w.APIVersion, SecretHint: w.SecretHint,
		Signature: w.SignatureAlgorithm, Ordered: w.Ordered, ForwardTrace: w.ForwardTrace, PaymentsVersion: w.PaymentsVersion, PayloadFilter: w.Filter, NewSecret: secret, ReadOnly: !may(c, operations.Webhooks), Notice: notice,
		Statuses: store.DeliveryFilters, EventTypes: testEventTypes(w),
		ResendSince: now.Add(-healthWindow).In(views.LocaleOf(ctx).TZ).Format(localInput),
		Health: views.HealthView{Attempts: h.Attempts, Succeeded: h.Succeeded, Rate: h.SuccessRate(), Failures: w.FailuresSince,
			Backlog: backlog.Pending, Due: backlog.Due},
	}
	if w.RateLimit != nil {
		page.Health.RateLimit = *w.RateLimit
	}
	if w.PublicKey != nil {
		page.PublicKey = *w.PublicKey
	}
	if w.SlowSince != nil {
		page.Health.SlowSince = when(c, *w.SlowSince)
	}
	if w.PausedUntil != nil && w.PausedUntil.After(now) {
		page.Health.PausedUntil = when(c, *w.PausedUntil)
	}
	page.MTLS = mtlsView(c, w, now)
	if h.LastErrorAt != nil {
		page.Health.LastErrorAt = when(c, *h.LastErrorAt)
		switch {
		case h.LastErrorStatus != nil:
			page.Health.LastError = t(c, "deliveries.last_http", "Status", *h.LastErrorStatus)
		case h.LastErrorClass != nil:
			page.Health.LastError = views.Label(ctx, "attempt_error", *h.LastErrorClass)
		}
	}
	if w.FailingSince != nil {
		page.Health.FailingSince = when(c, *w.FailingSince)
	}
	if w.DisabledReason != nil {
		page.Health.DisabledReason = *w.DisabledReason
	}
	if w.PreviousSecretExpiresAt != nil && w.PreviousSecretExpiresAt.After(now) {
		page.RotationExpiresAt = when(c, *w.PreviousSecretExpiresAt)
	}
	return page, d.deliveryConsole(c, w, &page)
}

// testEventTypes are the types a test may send: the subscribed ones first.
func testEventTypes(w *store.Webhook) []string {
	out := append([]string(nil), w.Events...)
	for _, e := range store.EventTypes {
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

// deliveryConsole reads the console's filter from the query and fills one
// page of deliveries (one query) with its paging links.
func (d *Dashboard) deliveryConsole(c *fiber.Ctx, w *store.Webhook, page *views.WebhookDetail) error {
	f := store.DeliveryFilter{Scope: w.Scope(), WebhookID: w.ID, Limit: dashPageSize, Search: strings.TrimSpace(c.Query("q")),
		StartingAfter: c.Query("starting_after")}
	page.Filter.Query = f.Search
	if s := c.Query("status"); slices.Contains(store.DeliveryFilters, s) {
		f.Status, page.Filter.Status = s, s
	}
	if e := c.Query("event_type"); slices.Contains(store.EventTypes, e) {
		f.EventType, page.Filter.EventType = e, e
	}
	if from, ok := localDay(c, c.Query("from")); ok {
		f.From, page.Filter.From = &from, from.Format(time.DateOnly)
	}
	if to, ok := localDay(c, c.Query("to")); ok {
		end := to.AddDate(0, 0, 1)
		f.To, page.Filter.To = &end, to.Format(time.DateOnly)
	}
	rows, hasMore, err := d.Store.DeliveryConsole(c.UserContext(), f)
	if err != nil {
		return err
	}
	for i := range rows {
		v := deliveryView(c, &rows[i])
		v.GaveUpInOrder = w.Ordered && rows[i].Status == store.DeliveryFailed
		page.Deliveries = append(page.Deliveries, v)
	}
	link := func(extra url.Values) string {
		q := filterQuery(map[string]string{"q": page.Filter.Query, "status": page.Filter.Status, "event_type": page.Filter.EventType,
			"from": page.Filter.From, "to": page.Filter.To})
		for k, v := range extra {
			q[k] = v
		}
		if len(q) == 0 {
			return "/dashboard/webhooks/" + w.ID
		}
		return "/dashboard/webhooks/" + w.ID + "?" + q.Encode()
	}
	if hasMore && len(rows) > 0 {
		page.NextURL = link(url.Values{"starting_after": {rows[len(rows)-1].ID}})
	}
	if f.StartingAfter != "" {
		page.NewestURL = link(nil)
	}
	return nil
}

func deliveryView(c *fiber.Ctx, dl *store.DeliveryRow) views.DeliveryView {
	v := views.DeliveryView{ID: dl.ID, WebhookID: dl.WebhookID, EventID: dl.EventID, EventType: dl.EventType, Status: dl.Status,
		Test: dl.Test, Attempts: dl.Attempts, CreatedAt: when(c, dl.CreatedAt)}
	if dl.Status == store.DeliveryPending {
		v.NextAt = when(c, dl.NextAttemptAt)
		v.RetryAfter = dl.LastError != nil && strings.Contains(*dl.LastError, dispatcher.RetryAfterNote)
		v.Waiting = dl.Waiting
	}
	if dl.LastStatusCode != nil {
		v.LastStatus = *dl.LastStatusCode
	}
	if dl.PaymentID != nil {
		v.PaymentID = dl.PaymentID.String()
		if dl.PaymentExternalID != nil {
			v.ExternalID = *dl.PaymentExternalID
		}
		if dl.PaymentAmount != nil {
			v.AmountLabel = pix.FormatBRL(*dl.PaymentAmount)
		}
	}
	return v
}

// DeliveryDetail handles GET /dashboard/webhooks/{id}/deliveries/{delivery_id}:
// one delivery with every attempt's request and response.
func (d *Dashboard) DeliveryDetail(c *fiber.Ctx) error {
	w, err := d.webhook(c)
	if err != nil {
		return err
	}
	page, err := d.deliveryPage(c, w, pathParam(c, "delivery_id"))
	if err != nil {
		return err
	}
	page.Nav = d.nav(c, "webhooks")
	page.ReadOnly = !may(c, operations.Webhooks)
	page.BackURL, page.BackLabel = "/dashboard/webhooks/"+w.ID, w.Name
	if page.Notice, err = d.takeNotice(c); err != nil {
		return err
	}
	return reply.Page(c, http.StatusOK, views.DeliveryDetailPage(page))
}

// deliveryPage reads one of w's deliveries, as the console lists it, with
// its attempts.
func (d *Dashboard) deliveryPage(c *fiber.Ctx, w *store.Webhook, deliveryID string) (views.DeliveryPage, error) {
	ctx := c.UserContext()
	rows, _, err := d.Store.DeliveryConsole(ctx, store.DeliveryFilter{Scope: w.Scope(), WebhookID: w.ID, Search: deliveryID, Limit: 1})
	if err != nil {
		return views.DeliveryPage{}, err
	}
	if len(rows) == 0 || !strings.HasPrefix(deliveryID, ids.PrefixDelivery+"_") {
		return views.DeliveryPage{}, reply.NoSuch("delivery", "delivery_id", deliveryID)
	}
	attempts, err := d.Store.Attempts(ctx, deliveryID)
	if err != nil {
		return views.DeliveryPage{}, err
	}
	page := views.DeliveryPage{WebhookName: w.Name, Delivery: deliveryView(c, &rows[0])}
	for i := range attempts {
		page.Attempts = append(page.Attempts, attemptView(c, &attempts[i]))
	}
	return page, nil
}

func attemptView(c *fiber.Ctx, a *store.DeliveryAttempt) views.AttemptView {
	v := views.AttemptView{ID: a.ID, Number: a.Attempt, At: views.TimeSeconds(c.UserContext(), a.CreatedAt), RequestURL: a.RequestURL,
		RequestBody: prettyJSON(a.RequestBody), DurationMS: a.DurationMS, ResponseBody: prettyJSON(a.ResponseText())}
	for k, val := range a.RequestHeaders {
		if k == store.TruncatedBodyHeader {
			v.RequestCutFrom = views.FormatCount(c.UserContext(), val)
			continue
		}
		v.RequestHeaders = append(v.RequestHeaders, views.Header{Name: k, Value: val})
	}
	for k, vals := range a.ResponseHeaders {
		if k == store.TruncatedBodyHeader {
			v.ResponseCut = true
			continue
		}
		v.ResponseHeaders = append(v.ResponseHeaders, views.Header{Name: k, Value: strings.Join(vals, ", ")})
	}
	sort.Slice(v.RequestHeaders, func(i, j int) bool { return v.RequestHeaders[i].Name < v.RequestHeaders[j].Name })
	sort.Slice(v.ResponseHeaders, func(i, j int) bool { return v.ResponseHeaders[i].Name < v.ResponseHeaders[j].Name })
	if a.ResponseStatus != nil {
		v.ResponseStatus = *a.ResponseStatus
	}
	if a.ErrorClass != nil {
		v.ErrorClass = *a.ErrorClass
		if a.ErrorMessage != nil {
			v.ErrorMessage = *a.ErrorMessage
		}
	}
	return v
}

// prettyJSON indents a JSON body for reading; anything else stays as it is.
func prettyJSON(s string) string {
	var out bytes.Buffer
	if json.Indent(&out, []byte(s), "", "  ") != nil {
		return s
	}
	return out.String()
}

// TestWebhook handles POST /dashboard/webhooks/{id}/test: a sample event
// of the chosen type, sent now and recorded as a test delivery. With htmx
// the result replaces #test-result; without JavaScript the whole page comes
// back with the result in place.
func (d *Dashboard) TestWebhook(c *fiber.Ctx) error {
	w, err := d.webhook(c)
	if err != nil {
		return err
	}
	if !w.Enabled {
		return d.noticeOrErr(c, "/dashboard/webhooks/"+w.ID, reply.InvalidRequest(http.StatusConflict, "webhook_disabled", "disabled"))
	}
	eventType := c.FormValue("event_type")
	if !slices.Contains(store.EventTypes, eventType) {
		eventType = w.TestEventType()
	}
	res, err := d.Ops.SendTest(c.UserContext(), request.Actor(c), w, eventType)
	if err != nil {
		return err
	}
	r := views.TestResult{Success: res.Success, LatencyMS: res.Latency.Milliseconds(), Body: prettyJSON(res.Attempt.ResponseText()),
		EventType: eventType, DeliveryID: res.Delivery.ID, WebhookID: w.ID}
	if res.Attempt.ResponseStatus != nil {
		r.Status = *res.Attempt.ResponseStatus
	}
	if res.Attempt.ErrorClass != nil {
		r.ErrorClass = *res.Attempt.ErrorClass
	}
	c.Set("Vary", "HX-Request")
	if c.Get("HX-Request") == "true" {
		// The page's deliveries now hold the test's: that list reloads
		// (nothing else on the page: a secret shown once stays shown).
		c.Set("HX-Trigger-After-Settle", "refresh-deliveries")
		return reply.Page(c, http.StatusOK, views.TestResultPartial(r))
	}
	page, err := d.webhookDetail(c, w)
	if err != nil {
		return err
	}
	page.TestResult = &r
	return reply.Page(c, http.StatusOK, views.WebhookDetailPage(page))
}

// ToggleWebhook handles POST /dashboard/webhooks/{id}/toggle. Disabling
// asks first (deliveries stop); enabling does not.
func (d *Dashboard) ToggleWebhook(c *fiber.Ctx) error {
	w, err := d.webhook(c)
	if err != nil {
		return err
	}
	back := "/dashboard/webhooks/" + w.ID
	if w.Enabled && !confirmed(c) {
		return d.confirm(c, "webhooks", views.Confirmation{Title: t(c, "webhook.disable_title", "Name", w.Name),
			Lines: []views.ConfirmLine{{Label: t(c, "field.url"), Value: w.URL}}, Warning: t(c, "webhook.disable_warning"),
			Button: t(c, "webhook.disable"), CancelURL: back, Danger: true})
	}
	enabled := !w.Enabled
	if _, err := d.Ops.UpdateWebhook(c.UserContext(), request.Actor(c), dashScope(c), w.ID, store.WebhookUpdate{Enabled: &enabled}); err != nil {
		return err
	}
	notice := t(c, "webhook.disabled_notice")
	if enabled {
		notice = t(c, "webhook.enabled_notice")
	}
	return d.noticeAndGo(c, notice, back)
}

// RotateWebhook handles POST /dashboard/webhooks/{id}/rotate, confirmed.
func (d *Dashboard) RotateWebhook(c *fiber.Ctx) error {
	w, err := d.webhook(c)
	if err != nil {
		return err
	}
	ed25519 := w.SignatureAlgorithm == store.SignatureEd25519
	if !confirmed(c) {
		line := views.ConfirmLine{Label: t(c, "webhook.secret"), Value: w.SecretHint}
		warning := t(c, "webhook.rotate_warning")
		if ed25519 {
			line = views.ConfirmLine{Label: t(c, "webhook.public_key"), Value: *w.PublicKey}
			warning = t(c, "webhook.rotate_key_warning")
		}
		return d.confirm(c, "webhooks", views.Confirmation{Title: t(c, "webhook.rotate_title", "Name", w.Name),
			Lines: []views.ConfirmLine{line}, Warning: warning, Button: t(c, "webhook.rotate"),
			CancelURL: "/dashboard/webhooks/" + w.ID, Danger: true})
	}
	rotated, secret, err := d.Ops.RotateWebhookSecret(c.UserContext(), request.Actor(c), dashScope(c), w.ID, "", "")
	if err != nil {
		return err
	}
	if ed25519 {
		return d.noticeAndGo(c, t(c, "webhook.key_rotated", "Key", *rotated.PublicKey), "/dashboard/webhooks/"+w.ID)
	}
	return d.revealOnce(c, w.ID, secret)
}

// DeleteWebhook handles POST /dashboard/webhooks/{id}/delete, confirmed.
func (d *Dashboard) DeleteWebhook(c *fiber.Ctx) error {
	w, err := d.webhook(c)
	if err != nil {
		return err
	}
	if !confirmed(c) {
		return d.confirm(c, "webhooks", views.Confirmation{Title: t(c, "webhook.delete_title", "Name", w.Name),
			Lines:   []views.ConfirmLine{{Label: t(c, "field.url"), Value: w.URL}},
			Warning: t(c, "webhook.delete_warning"), Button: t(c, "action.delete"), CancelURL: "/dashboard/webhooks/" + w.ID, Danger: true})
	}
	if err := d.Ops.DeleteWebhook(c.UserContext(), request.Actor(c), dashScope(c), w.ID); err != nil {
		return err
	}
	return d.noticeAndGo(c, t(c, "webhook.deleted", "Name", w.Name), "/dashboard/webhooks")
}

// ResendDelivery handles POST /dashboard/webhooks/{id}/deliveries/{delivery_id}/resend.
func (d *Dashboard) ResendDelivery(c *fiber.Ctx) error {
	w, err := d.webhook(c)
	if err != nil {
		return err
	}
	deliveryID := pathParam(c, "delivery_id")
	if _, err := d.Ops.ResendDelivery(c.UserContext(), request.Actor(c), dashScope(c), w.ID, deliveryID); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return reply.NoSuch("delivery", "delivery_id", deliveryID)
		}
		return err
	}
	return d.noticeAndGo(c, t(c, "deliveries.resent"), "/dashboard/webhooks/"+w.ID+"/deliveries/"+deliveryID)
}

// ResendFailed handles POST /dashboard/webhooks/{id}/resend-failed: every
// failed delivery created since the time given goes out again.
func (d *Dashboard) ResendFailed(c *fiber.Ctx) error {
	w, err := d.webhook(c)
	if err != nil {
		return err
	}
	back := "/dashboard/webhooks/" + w.ID
	since, err := localTime(c, c.FormValue("since"))
	if err != nil {
		return d.noticeOrErr(c, back, reply.InvalidParam("since_invalid", "since", "bad time"))
	}
	n, err := d.Ops.ResendFailedSince(c.UserContext(), request.Actor(c), dashScope(c), w.ID, since)
	if err != nil {
		return err
	}
	return d.noticeAndGo(c, views.Tn(c.UserContext(), "deliveries.resent_failed", n, "Since", when(c, since)), back)
}

// RecoverEvents handles POST /dashboard/webhooks/{id}/recover: a new
// delivery of every event of the webhook's types created since the time
// given (and until, when given).
func (d *Dashboard) RecoverEvents(c *fiber.Ctx) error {
	w, err := d.webhook(c)
	if err != nil {
		return err
	}
	back := "/dashboard/webhooks/" + w.ID
	since, err := localTime(c, c.FormValue("since"))
	if err != nil {
		return d.noticeOrErr(c, back, reply.InvalidParam("since_invalid", "since", "bad time"))
	}
	until := d.Store.Now()
	if v := c.FormValue("until"); v != "" {
		if until, err = localTime(c, v); err != nil || until.Before(since) {
			return d.noticeOrErr(c, back, reply.InvalidParam("until_invalid", "until", "bad time"))
		}
		until = until.Add(time.Minute - time.Millisecond) // the whole minute it names
	}
	n, err := d.Ops.RecoverEvents(c.UserContext(), request.Actor(c), dashScope(c), w.ID, since, until)
	if errors.Is(err, store.ErrWebhookDisabled) {
		return d.noticeOrErr(c, back, reply.InvalidRequest(http.StatusConflict, "webhook_disabled", "disabled"))
	}
	if err != nil {
		return err
	}
	return d.noticeAndGo(c, views.Tn(c.UserContext(), "deliveries.recovered", n, "Since", when(c, since)), back)
}

// ReplayWebhook handles POST /dashboard/webhooks/{id}/replay: every event
// of the ticked types created in the window, delivered again, in the
// background (the page lists its progress).
func (d *Dashboard) ReplayWebhook(c *fiber.Ctx) error {
	w, err := d.webhook(c)
	if err != nil {
		return err
	}
	back := "/dashboard/webhooks/" + w.ID
	from, err := localTime(c, c.FormValue("from"))
	if err != nil {
		return d.noticeOrErr(c, back, reply.InvalidParam("since_invalid", "from", "bad time"))
	}
	to, err := localTime(c, c.FormValue("to"))
	if err != nil || to.Before(from) {
		return d.noticeOrErr(c, back, reply.InvalidParam("until_invalid", "to", "bad time"))
	}
	to = to.Add(time.Minute - time.Millisecond) // the whole minute it names
	var types []string
	for _, t := range c.Context().PostArgs().PeekMulti("types") {
		types = append(types, string(t))
	}
	if len(types) == 0 {
		return d.noticeOrErr(c, back, reply.InvalidParam("parameter_missing", "types", "no types"))
	}
	r, err := d.Ops.ReplayWebhook(c.UserContext(), request.Actor(c), dashScope(c), w.ID, from, to, types)
	if err != nil {
		return d.noticeOrErr(c, back, reply.Replay(err, w.ID))
	}
	return d.noticeAndGo(c, views.T(c.UserContext(), "replay.started", "Total", r.EventsTotal), back)
}

// replayViews are w's latest replays as its page lists them.
func (d *Dashboard) replayViews(c *fiber.Ctx, w *store.Webhook) ([]views.ReplayView, error) {
	rows, err := d.Store.Replays(c.UserContext(), dashScope(c), w.ID, 5)
	if err != nil {
		return nil, err
	}
	ctx := c.UserContext()
	out := make([]views.ReplayView, len(rows))
	for i, r := range rows {
		out[i] = views.ReplayView{Status: r.Status, Window: views.T(ctx, "replay.window", "From", when(c, r.From), "To", when(c, r.To)),
			Progress: views.T(ctx, "replay."+r.Status, "Queued", r.EventsQueued, "Total", r.EventsTotal)}
	}
	return out, nil
}

// EventCatalog handles GET /dashboard/webhooks/events: every event type,
// what it means, and what its v2 and v1 deliveries carry.
func (d *Dashboard) EventCatalog(c *fiber.Ctx) error {
	page := views.EventCatalog{Nav: d.nav(c, "webhooks")}
	page.VerifyHMAC, page.VerifyEd25519 = signature.NodeVerifiers()
	now := d.Store.Now().UTC().Truncate(time.Second)
	for _, eventType := range store.EventTypes {
		obj, objectID := dispatcher.SampleObject(eventType, dashScope(c), now)
		data, err := json.Marshal(obj)
		if err != nil {
			return err
		}
		e := &store.Event{ID: "evt_" + strings.Repeat("0", 22), Type: eventType, ObjectID: objectID, Data: data, CreatedAt: now,
			Livemode: dashScope(c).Livemode}
		doc := views.EventDoc{Type: eventType}
		for _, version := range []string{"v2", "v1"} {
			body, err := envelope.Envelope(version, e)
			if err != nil {
				return err
			}
			if version == "v2" {
				doc.SampleV2 = prettyJSON(string(body))
			} else {
				doc.SampleV1 = prettyJSON(string(body))
			}
		}
		page.Events = append(page.Events, doc)
	}
	return reply.Page(c, http.StatusOK, views.EventCatalogPage(page))
}
