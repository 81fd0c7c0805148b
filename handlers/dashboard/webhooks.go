package dashboard

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/gofiber/fiber/v2"

	"payments/dispatcher"
	"payments/store"
	"payments/views"
	"payments/web/reply"
	"payments/web/request"
)

var disabledReasons = map[string]string{
	store.DisabledManual:       "Disabled by hand.",
	store.DisabledEndpointGone: "Disabled: the endpoint answered 410 Gone.",
	store.DisabledFailing:      "Disabled: deliveries failed for more than 5 days.",
}

func webhookRow(w *store.Webhook, last *store.Delivery) views.WebhookRow {
	row := views.WebhookRow{ID: w.ID, Name: w.Name, URL: w.URL, Events: w.Events, Enabled: w.Enabled}
	if w.DisabledReason != nil {
		row.Disabled = disabledReasons[*w.DisabledReason]
	}
	if last != nil {
		row.LastOutcome, row.LastAt = last.Status, views.FormatTime(last.UpdatedAt)
	}
	return row
}

// Webhooks handles GET /dashboard/webhooks.
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
	count, err := d.Store.CountWebhooks(ctx, scope.AccountID)
	if err != nil {
		return err
	}
	page := views.WebhooksPage{Nav: d.nav(c, "webhooks"), Count: count, Max: store.MaxWebhooksPerAccount,
		AtTheCap: count >= store.MaxWebhooksPerAccount}
	for i := range hooks {
		var l *store.Delivery
		if dl, ok := last[hooks[i].ID]; ok {
			l = &dl
		}
		page.Rows = append(page.Rows, webhookRow(&hooks[i], l))
		if r := hooks[i].DisabledReason; r != nil && *r != store.DisabledManual {
			page.AutoDisabled++
		}
	}
	return reply.Page(c, http.StatusOK, views.Webhooks(page))
}

func (d *Dashboard) webhookForm(c *fiber.Ctx) (views.WebhookForm, error) {
	count, err := d.Store.CountWebhooks(c.UserContext(), dashScope(c).AccountID)
	return views.WebhookForm{
		Nav: d.nav(c, "webhooks"), APIVersion: "v2", Events: []string{store.EventPaymentPaid}, AllEvents: store.EventTypes,
		Errors: map[string]string{}, AtTheCap: count >= store.MaxWebhooksPerAccount, Max: store.MaxWebhooksPerAccount,
	}, err
}

// NewWebhook handles GET /dashboard/webhooks/new.
func (d *Dashboard) NewWebhook(c *fiber.Ctx) error {
	form, err := d.webhookForm(c)
	if err != nil {
		return err
	}
	return reply.Page(c, http.StatusOK, views.WebhookNew(form))
}

// readWebhookForm fills form from the posted fields and checks them by the
// API's rules, leaving errors beside their fields; it returns the secret.
func (d *Dashboard) readWebhookForm(c *fiber.Ctx, form *views.WebhookForm) string {
	form.Name = strings.TrimSpace(c.FormValue("name"))
	form.URL = strings.TrimSpace(c.FormValue("url"))
	form.APIVersion = c.FormValue("api_version")
	secret := c.FormValue("secret")
	form.Events = nil
	for _, e := range c.Context().PostArgs().PeekMulti("events") {
		form.Events = append(form.Events, string(e))
	}
	if form.APIVersion != "v1" {
		form.APIVersion = "v2"
	}
	if len([]rune(form.Name)) > store.MaxWebhookName {
		form.Errors["name"] = fmt.Sprintf("At most %d characters.", store.MaxWebhookName)
	}
	if form.URL == "" {
		form.Errors["url"] = "Enter the URL of your endpoint."
	} else if err := dispatcher.CheckURL(form.URL, d.AllowPrivateNetworks); err != nil {
		form.Errors["url"] = err.Error()
	}
	switch err := store.CheckCustomSecret(secret); {
	case errors.Is(err, store.ErrSecretLength):
		form.Errors["secret"] = fmt.Sprintf("A custom secret must be %d to %d characters.", store.MinCustomSecret, store.MaxCustomSecret)
	case err != nil:
		form.Errors["secret"] = "A custom secret may only contain printable ASCII characters without spaces."
	}
	if len(form.Events) == 0 {
		form.Errors["events"] = "Choose at least one event; payment.paid is the usual one."
	}
	for _, e := range form.Events {
		if !slices.Contains(store.EventTypes, e) {
			form.Errors["events"] = "Unknown event type: " + e
		}
	}
	if form.Name == "" {
		form.Name = store.DefaultWebhookName
	}
	return secret
}

// CreateWebhook handles POST /dashboard/webhooks: the same rules as the
// API, with errors shown beside their fields.
func (d *Dashboard) CreateWebhook(c *fiber.Ctx) error {
	form, err := d.webhookForm(c)
	if err != nil {
		return err
	}
	secret := d.readWebhookForm(c, &form)
	if len(form.Errors) > 0 || form.AtTheCap {
		return reply.Page(c, http.StatusUnprocessableEntity, views.WebhookNew(form))
	}
	w, secret, err := d.Store.CreateWebhook(c.UserContext(), store.NewWebhook{
		Scope: dashScope(c), Name: form.Name, URL: form.URL, APIVersion: form.APIVersion, Events: form.Events, Enabled: true, Secret: secret,
	})
	if errors.Is(err, store.ErrWebhookLimit) {
		form.AtTheCap = true
		return reply.Page(c, http.StatusUnprocessableEntity, views.WebhookNew(form))
	}
	if err != nil {
		return err
	}
	return d.revealOnce(c, w.ID, secret)
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
	d.readWebhookForm(c, &form)
	delete(form.Errors, "secret") // the edit form has no secret: rotation changes it
	if len(form.Errors) > 0 {
		return reply.Page(c, http.StatusUnprocessableEntity, views.WebhookNew(form))
	}
	_, err = d.Store.UpdateWebhook(c.UserContext(), dashScope(c), w.ID, store.WebhookUpdate{
		Name: &form.Name, URL: &form.URL, APIVersion: &form.APIVersion, Events: form.Events,
	})
	if err != nil {
		return err
	}
	return c.Redirect("/dashboard/webhooks/"+w.ID, http.StatusSeeOther)
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

// WebhookDetail handles GET /dashboard/webhooks/{id}.
func (d *Dashboard) WebhookDetail(c *fiber.Ctx) error {
	w, err := d.webhook(c)
	if err != nil {
		return err
	}
	page, err := d.webhookDetail(c, w)
	if err != nil {
		return err
	}
	return reply.Page(c, http.StatusOK, views.WebhookDetailPage(page))
}

// webhookDetail builds w's page, taking the one-time secret if one waits.
func (d *Dashboard) webhookDetail(c *fiber.Ctx, w *store.Webhook) (views.WebhookDetail, error) {
	secret, err := d.takeFlash(c, "reveal:"+w.ID)
	if err != nil {
		return views.WebhookDetail{}, err
	}
	deliveries, _, err := d.Store.Deliveries(c.UserContext(), store.DeliveryListParams{Scope: dashScope(c), WebhookID: w.ID, Limit: dashPageSize})
	if err != nil {
		return views.WebhookDetail{}, err
	}
	now := d.Store.Now()
	page := views.WebhookDetail{
		Nav: d.nav(c, "webhooks"), Webhook: webhookRow(w, nil), APIVersion: w.APIVersion, SecretHint: w.SecretHint,
		NewSecret: secret, ReadOnly: request.CurrentUser(c).User.Role != store.RoleOwner,
	}
	if w.PreviousSecretExpiresAt != nil && w.PreviousSecretExpiresAt.After(now) {
		page.RotationExpiresAt = views.FormatTime(*w.PreviousSecretExpiresAt)
	}
	for i := range deliveries {
		page.Deliveries = append(page.Deliveries, deliveryView(&deliveries[i]))
	}
	return page, nil
}

func deliveryView(dl *store.Delivery) views.DeliveryView {
	v := views.DeliveryView{ID: dl.ID, EventID: dl.EventID, EventType: dl.EventType, Status: dl.Status,
		CreatedAt: views.FormatTime(dl.CreatedAt)}
	if dl.Status == store.DeliveryPending {
		v.NextAt = views.FormatTime(dl.NextAttemptAt)
	}
	for i := range dl.AttemptsList {
		v.Attempts = append(v.Attempts, attemptView(&dl.AttemptsList[i]))
	}
	return v
}

func attemptView(a *store.DeliveryAttempt) views.AttemptView {
	v := views.AttemptView{ID: a.ID, Number: a.Attempt, At: views.FormatTime(a.CreatedAt), RequestBody: a.RequestBody,
		DurationMS: a.DurationMS, ResponseBody: a.ResponseText()}
	for k, val := range a.RequestHeaders {
		v.RequestHeaders = append(v.RequestHeaders, views.Header{Name: k, Value: val})
	}
	for k, vals := range a.ResponseHeaders {
		v.ResponseHeaders = append(v.ResponseHeaders, views.Header{Name: k, Value: strings.Join(vals, ", ")})
	}
	sort.Slice(v.RequestHeaders, func(i, j int) bool { return v.RequestHeaders[i].Name < v.RequestHeaders[j].Name })
	sort.Slice(v.ResponseHeaders, func(i, j int) bool { return v.ResponseHeaders[i].Name < v.ResponseHeaders[j].Name })
	if a.ResponseStatus != nil {
		v.ResponseStatus = *a.ResponseStatus
	}
	if a.ErrorClass != nil {
		v.Error = *a.ErrorClass
		if a.ErrorMessage != nil && *a.ErrorMessage != "" {
			v.Error += ": " + *a.ErrorMessage
		}
	}
	return v
}

// TestWebhook handles POST /dashboard/webhooks/{id}/test. With htmx the
// result replaces #test-result; without JavaScript the whole page comes
// back with the result in place.
func (d *Dashboard) TestWebhook(c *fiber.Ctx) error {
	w, err := d.webhook(c)
	if err != nil {
		return err
	}
	eventType := w.TestEventType()
	res, err := d.Tester.SendTest(c.UserContext(), w, eventType)
	if err != nil {
		return err
	}
	r := views.TestResult{Success: res.Success, LatencyMS: res.Latency.Milliseconds(), Body: res.Attempt.ResponseText()}
	if res.Attempt.ResponseStatus != nil {
		r.Status = *res.Attempt.ResponseStatus
	}
	if res.Attempt.ErrorClass != nil {
		r.Error = *res.Attempt.ErrorClass
	}
	c.Set("Vary", "HX-Request")
	if c.Get("HX-Request") == "true" {
		return reply.Page(c, http.StatusOK, views.TestResultPartial(r))
	}
	page, err := d.webhookDetail(c, w)
	if err != nil {
		return err
	}
	page.TestResult = &r
	return reply.Page(c, http.StatusOK, views.WebhookDetailPage(page))
}

// ToggleWebhook handles POST /dashboard/webhooks/{id}/toggle.
func (d *Dashboard) ToggleWebhook(c *fiber.Ctx) error {
	w, err := d.webhook(c)
	if err != nil {
		return err
	}
	enabled := !w.Enabled
	if _, err := d.Store.UpdateWebhook(c.UserContext(), dashScope(c), w.ID, store.WebhookUpdate{Enabled: &enabled}); err != nil {
		return err
	}
	return c.Redirect("/dashboard/webhooks/"+w.ID, http.StatusSeeOther)
}

// RotateWebhook handles POST /dashboard/webhooks/{id}/rotate.
func (d *Dashboard) RotateWebhook(c *fiber.Ctx) error {
	w, err := d.webhook(c)
	if err != nil {
		return err
	}
	_, secret, err := d.Store.RotateWebhookSecret(c.UserContext(), dashScope(c), w.ID, "")
	if err != nil {
		return err
	}
	return d.revealOnce(c, w.ID, secret)
}

// DeleteWebhook handles POST /dashboard/webhooks/{id}/delete.
func (d *Dashboard) DeleteWebhook(c *fiber.Ctx) error {
	w, err := d.webhook(c)
	if err != nil {
		return err
	}
	if err := d.Store.DeleteWebhook(c.UserContext(), dashScope(c), w.ID); err != nil {
		return err
	}
	return c.Redirect("/dashboard/webhooks", http.StatusSeeOther)
}

// ResendDelivery handles POST /dashboard/webhooks/{id}/deliveries/{delivery_id}/resend.
func (d *Dashboard) ResendDelivery(c *fiber.Ctx) error {
	w, err := d.webhook(c)
	if err != nil {
		return err
	}
	deliveryID := pathParam(c, "delivery_id")
	if _, err := d.Store.ResendDelivery(c.UserContext(), dashScope(c), w.ID, deliveryID); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return reply.NoSuch("delivery", "delivery_id", deliveryID)
		}
		return err
	}
	return c.Redirect("/dashboard/webhooks/"+w.ID, http.StatusSeeOther)
}
