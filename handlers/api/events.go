package api

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"payments/dispatcher/envelope"
	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/metrics"
	"payments/store"
	"payments/store/apimodel"
	"payments/store/eventfeed"
	"payments/store/jsonw"
)

var listEventsQuery = []string{"limit", "type", "created[gte]", "created[lte]", "delivery_success", "starting_after", "ending_before"}

// ListEvents handles GET /api/v1/events: the account's events, newest
// first, each exactly the v2 body a webhook receives.
func (a *API) ListEvents(c *fiber.Ctx) error {
	params := store.EventListParams{Scope: request.Scope(c)}
	var apiErr *reply.Error
	if params.Limit, _, apiErr = parseListQuery(c, listEventsQuery, nil); apiErr != nil {
		return apiErr
	}
	if params.Types, apiErr = parseTypesQuery(c); apiErr != nil {
		return apiErr
	}
	if params.CreatedGTE, params.CreatedLTE, apiErr = parseCreatedBounds(c); apiErr != nil {
		return apiErr
	}
	if v := c.Query("delivery_success"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil || (v != "true" && v != "false") {
			return reply.InvalidParam("parameter_invalid", "delivery_success", "delivery_success must be true or false.")
		}
		params.DeliverySuccess = &b
	}
	params.StartingAfter, params.EndingBefore = c.Query("starting_after"), c.Query("ending_before")
	if params.StartingAfter != "" && params.EndingBefore != "" {
		return reply.InvalidParam("parameter_invalid", "ending_before", "Use starting_after or ending_before, not both.")
	}
	for _, cursor := range []struct{ name, id string }{{"starting_after", params.StartingAfter}, {"ending_before", params.EndingBefore}} {
		if cursor.id == "" {
			continue
		}
		if _, err := a.Store.EventByID(c.UserContext(), params.Scope, cursor.id); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return reply.InvalidParam("resource_missing", cursor.name, "No such event: '%s'", reply.Truncate(cursor.id))
			}
			return err
		}
	}
	page, hasMore, err := a.Store.ListEvents(c.UserContext(), params)
	if err != nil {
		return err
	}
	// Written by hand: each item is the envelope's bytes, as sent (in the
	// request's dated version).
	version, _ := request.Version(c)
	b := make([]byte, 0, 1024*len(page)+64)
	b = append(b, `{"object":"list","url":"/api/v1/events","has_more":`...)
	b = strconv.AppendBool(b, hasMore)
	b = append(b, `,"data":[`...)
	for i := range page {
		if i > 0 {
			b = append(b, ',')
		}
		env, err := envelope.InVersion("v2", version, &page[i], page[i].AccountID)
		if err != nil {
			return err
		}
		b = append(b, env...)
	}
	b = append(b, "]}"...)
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Send(b)
}

// eventRef is the event the path names.
func eventRef(c *fiber.Ctx) (string, error) {
	return pathID(c, "id", func(id string) *reply.Error { return reply.NoSuch("event", "id", id) })
}

// GetEvent handles GET /api/v1/events/{id}: the v2 body a webhook receives,
// with one more member, deliveries (each with its attempts).
func (a *API) GetEvent(c *fiber.Ctx) error {
	id, err := eventRef(c)
	if err != nil {
		return err
	}
	scope := request.Scope(c)
	e, err := a.Store.EventByID(c.UserContext(), scope, id)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return reply.NoSuch("event", "id", id)
		}
		return err
	}
	deliveries, err := a.Store.EventDeliveries(c.UserContext(), scope, id)
	if err != nil {
		return err
	}
	data := make([]apimodel.Delivery, len(deliveries))
	for i := range deliveries {
		data[i] = deliveries[i].JSON()
	}
	list, err := json.Marshal(listBody[apimodel.Delivery]{Object: "list", URL: "/api/v1/events/" + id + "/deliveries", Data: data})
	if err != nil {
		return err
	}
	version, _ := request.Version(c)
	env, err := envelope.InVersion("v2", version, e, e.AccountID)
	if err != nil {
		return err
	}
	b := append(env[:len(env)-1:len(env)-1], `,"deliveries":`...)
	b = append(append(b, list...), '}')
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Send(b)
}

// ResendEvent handles POST /api/v1/events/{id}/resend: a new delivery of
// the event to the webhook named, or to every enabled webhook subscribed
// to its type.
func (a *API) ResendEvent(c *fiber.Ctx) error {
	id, err := eventRef(c)
	if err != nil {
		return err
	}
	o, apiErr := request.OptionalBody(c, "webhook")
	if apiErr != nil {
		return apiErr
	}
	var webhook string
	if o.Present("webhook") {
		if webhook, apiErr = o.Str("webhook", 64); apiErr != nil {
			return apiErr
		}
	}
	scope := request.Scope(c)
	e, err := a.Store.EventByID(c.UserContext(), scope, id)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return reply.NoSuch("event", "id", id)
		}
		return err
	}
	made, err := a.Ops.ResendEvent(c.UserContext(), request.Actor(c), scope, e, webhook)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return reply.InvalidParam("resource_missing", "webhook", "No such webhook: '%s'", reply.Truncate(webhook))
	case errors.Is(err, store.ErrWebhookDisabled):
		return webhookDisabled()
	case err != nil:
		return err
	}
	data := make([]apimodel.Delivery, len(made))
	for i := range made {
		data[i] = made[i].JSON()
	}
	return c.JSON(listBody[apimodel.Delivery]{Object: "list", URL: "/api/v1/events/" + id + "/deliveries", Data: data})
}

func webhookDisabled() *reply.Error {
	return reply.InvalidRequest(http.StatusConflict, "webhook_disabled", "This webhook is disabled: enable it first, then recover or resend.")
}

// parseTypesQuery reads type, repeated or comma-separated, each a known
// event type.
func parseTypesQuery(c *fiber.Ctx) ([]string, *reply.Error) {
	var types []string
	for _, raw := range c.Context().QueryArgs().PeekMulti("type") {
		for _, t := range strings.Split(string(raw), ",") {
			if t = strings.TrimSpace(t); t == "" {
				continue
			}
			if !slices.Contains(store.EventTypes, t) {
				return nil, reply.InvalidParam("parameter_invalid", "type", "Unknown event type %q. Known types: %s.",
					reply.Truncate(t), strings.Join(store.EventTypes, ", "))
			}
			if !slices.Contains(types, t) {
				types = append(types, t)
			}
		}
	}
	return types, nil
}

var streamEventsQuery = []string{"type", "api_version", "starting_after"}

// Stream pacing: how often an idle stream says it is alive, and how many
// events one read hands out. How often the account's feed looks for new
// events is the hub's (eventfeed).
const (
	streamKeepAlive = 15 * time.Second
	streamBatch     = 100
)

// StreamEvents handles GET /api/v1/events/stream: Server-Sent Events, one
// per event as it happens (id: the event id; event: its type; data: the
// body a webhook of api_version receives). A client that reconnects with
// Last-Event-ID (or starting_after) gets every event after that one, with
// no gap and no repeat: events are handed out in the order their
// transactions allow (see store.StreamPosition). The streams of one
// account share one reader of its events (eventfeed); beyond the streams a
// key or an account may hold, 429 too_many_streams.
func (a *API) StreamEvents(c *fiber.Ctx) error {
	if _, _, apiErr := parseListQuery(c, streamEventsQuery, nil); apiErr != nil {
		return apiErr
	}
	types, apiErr := parseTypesQuery(c)
	if apiErr != nil {
		return apiErr
	}
	version := c.Query("api_version", "v2")
	if !slices.Contains(store.APIVersions, version) {
		return reply.InvalidParam("parameter_invalid", "api_version", "api_version must be v2 or v1.")
	}
	after, param := c.Get("Last-Event-ID"), "Last-Event-ID"
	if v := c.Query("starting_after"); v != "" {
		after, param = v, "starting_after"
	}
	scope := request.Scope(c)
	sub, err := a.Streams.Subscribe(scope, request.APIKey(c).ID)
	var limit *eventfeed.LimitError
	if errors.As(err, &limit) {
		a.Metrics.Refused(map[string]string{"key": metrics.LimitStreamsPerKey, "account": metrics.LimitStreamsPerAccount}[limit.Of])
		c.Set(fiber.HeaderRetryAfter, "1")
		// A refused client does not keep the connection (and its buffers).
		c.Context().SetConnectionClose()
		return reply.InvalidRequest(http.StatusTooManyRequests, "too_many_streams",
			"This %s has %d event streams open, the most it may: close one first (see the README's limits).", limit.Of, limit.Limit)
	}
	pos, err := a.Store.StreamFrom(c.UserContext(), scope, after)
	if err != nil {
		sub.Close()
		if errors.Is(err, store.ErrNotFound) {
			return reply.InvalidParam("resource_missing", param, "No such event: '%s'", reply.Truncate(after))
		}
		return err
	}
	c.Set(fiber.HeaderContentType, "text/event-stream; charset=utf-8")
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Set("X-Accel-Buffering", "no")
	// The connection ends with the stream: nothing else is read from it.
	c.Context().SetConnectionClose()
	conn := c.Context().Conn()
	log, closing := a.Log, a.Closing
	paymentsVersion, _ := request.Version(c)
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		defer sub.Close()
		// A fresh context (the request's ends when the handler returns),
		// canceled as soon as the client hangs up.
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		defer watchHangUp(conn, cancel)()
		send := func(format string, args ...any) bool {
			// The server's write timeout is for ordinary answers: a stream
			// extends it at every write.
			_ = conn.SetWriteDeadline(time.Now().Add(streamKeepAlive * 2))
			fmt.Fprintf(w, format, args...)
			return w.Flush() == nil
		}
		if !send("retry: 1000\n: ready\n\n") {
			return
		}
		keepAlive := time.NewTimer(streamKeepAlive)
		defer keepAlive.Stop()
		for {
			changed := sub.Changed()
			readCtx, done := context.WithTimeout(ctx, 10*time.Second)
			events, next, err := sub.Read(readCtx, pos, types, streamBatch)
			done()
			switch {
			case ctx.Err() != nil:
				return
			case err != nil:
				log.Error("events stream: read", "error", err.Error())
				send(": the service could not read events; reconnect with Last-Event-ID\n\n")
				return
			}
			for i := range events {
				body, err := envelope.InVersion(version, paymentsVersion, &events[i], events[i].AccountID)
				if err != nil || !send("id: %s\nevent: %s\ndata: %s\n\n", events[i].ID, events[i].Type, body) {
					return
				}
			}
			pos = next
			if len(events) == streamBatch {
				continue
			}
			if len(events) > 0 {
				keepAlive.Reset(streamKeepAlive)
			}
			select {
			case <-closing:
				return
			case <-ctx.Done():
				return
			case <-changed:
			case <-keepAlive.C:
				if !send(": keep-alive\n\n") {
					return
				}
				keepAlive.Reset(streamKeepAlive)
			}
		}
	})
	return nil
}

// watchHangUp cancels the stream as soon as its client closes the
// connection (a read returns), not at the next write, which may be a
// keep-alive 15 s away. Nothing else reads the connection while the stream
// runs. The function it returns stops the watch and waits for it to end.
func watchHangUp(conn net.Conn, hangUp context.CancelFunc) func() {
	_ = conn.SetReadDeadline(time.Time{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var b [1]byte
		_, _ = conn.Read(b[:])
		hangUp()
	}()
	return func() {
		_ = conn.SetReadDeadline(time.Now())
		<-done
	}
}

// recoverJSON answers a recovery.
type recoverJSON struct {
	Object    string `json:"object"`
	WebhookID string `json:"webhook_id"`
	Since     string `json:"since"`
	Until     string `json:"until"`
	Requeued  int    `json:"requeued"`
}

// RecoverWebhook handles POST /api/v1/webhooks/{id}/recover: a new
// delivery of every event of the webhook's types created from since to
// until (default now), whatever became of earlier ones.
func (a *API) RecoverWebhook(c *fiber.Ctx) error {
	id, err := webhookID(c)
	if err != nil {
		return err
	}
	o, apiErr := request.Body(c, "since", "until")
	if apiErr != nil {
		return apiErr
	}
	if !o.Present("since") {
		return o.Missing("since")
	}
	bound := func(name string) (time.Time, *reply.Error) {
		outOfRange := func() *reply.Error {
			return reply.InvalidParam("parameter_invalid", name, "%s must be a Unix timestamp in seconds.", name)
		}
		secs, apiErr := o.IntegerBounded(name, 0, maxUnixSeconds, outOfRange, outOfRange)
		return time.Unix(secs, 0).UTC(), apiErr
	}
	since, apiErr := bound("since")
	if apiErr != nil {
		return apiErr
	}
	until := a.Store.Now().UTC()
	if o.Present("until") {
		if until, apiErr = bound("until"); apiErr != nil {
			return apiErr
		}
		until = until.Add(time.Second - time.Millisecond) // the whole second it names
	}
	if until.Before(since) {
		return reply.InvalidParam("parameter_invalid", "until", "until must not be before since.")
	}
	n, err := a.Ops.RecoverEvents(c.UserContext(), request.Actor(c), request.Scope(c), id, since, until)
	switch {
	case errors.Is(err, store.ErrWebhookDisabled):
		return webhookDisabled()
	case err != nil:
		return reply.Webhook(err, id)
	}
	return c.JSON(recoverJSON{Object: "webhook_recovery", WebhookID: id, Since: jsonw.FormatTime(since),
		Until: jsonw.FormatTime(until), Requeued: n})
}

// ListEventTypes handles GET /api/v1/event_types: every event type, what
// it means, and a JSON Schema of its payload in each webhook version. Any
// key may read it: it is the catalog, not the account's data.
func (a *API) ListEventTypes(c *fiber.Ctx) error {
	if _, _, apiErr := parseListQuery(c, nil, nil); apiErr != nil {
		return apiErr
	}
	body, err := a.EventTypes()
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Send(body)
}
