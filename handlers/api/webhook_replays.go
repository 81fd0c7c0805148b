package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/handlers/request"
	"payments/store"
	"payments/store/apimodel"
)

// ReplayWebhook handles POST /api/v1/webhooks/{id}/replay {from, to,
// types?}: every event of the window (of types, else of the webhook's),
// delivered again whatever became of earlier deliveries. 202 with the
// replay, which runs in the background: GET it for its progress.
func (a *API) ReplayWebhook(c *fiber.Ctx) error {
	id, err := webhookID(c)
	if err != nil {
		return err
	}
	o, apiErr := request.Body(c, "from", "to", "types")
	if apiErr != nil {
		return apiErr
	}
	from, apiErr := instant(o, "from")
	if apiErr != nil {
		return apiErr
	}
	to, apiErr := instant(o, "to")
	if apiErr != nil {
		return apiErr
	}
	if raw := o.Raw("to"); len(raw) > 0 && raw[0] != '"' {
		to = to.Add(time.Second - time.Millisecond) // the whole second it names
	}
	if to.Before(from) {
		return reply.InvalidParam("parameter_invalid", "to", "to must not be before from.")
	}
	var types []string
	if o.Present("types") {
		if types, apiErr = replayTypes(o); apiErr != nil {
			return apiErr
		}
	}
	r, err := a.Ops.ReplayWebhook(c.UserContext(), request.Actor(c), request.Scope(c), id, from, to, types)
	if err != nil {
		return reply.Replay(err, id)
	}
	return c.Status(http.StatusAccepted).JSON(r.JSON())
}

// ListReplays handles GET /api/v1/webhooks/{id}/replays?limit: its latest
// replays, newest first.
func (a *API) ListReplays(c *fiber.Ctx) error {
	id, err := webhookID(c)
	if err != nil {
		return err
	}
	limit, _, apiErr := parseListQuery(c, []string{"limit"}, nil)
	if apiErr != nil {
		return apiErr
	}
	scope := request.Scope(c)
	if _, err := a.Store.Webhook(c.UserContext(), scope, id); err != nil {
		return reply.Webhook(err, id)
	}
	rows, err := a.Store.Replays(c.UserContext(), scope, id, limit)
	if err != nil {
		return err
	}
	data := make([]apimodel.WebhookReplay, len(rows))
	for i := range rows {
		data[i] = rows[i].JSON()
	}
	return c.JSON(listBody[apimodel.WebhookReplay]{Object: "list", URL: "/api/v1/webhooks/" + id + "/replays", Data: data})
}

// GetReplay handles GET /api/v1/webhooks/{id}/replays/{replay_id}.
func (a *API) GetReplay(c *fiber.Ctx) error {
	hook, ok := request.Param(c, "id")
	replay, _ := request.Param(c, "replay_id")
	if !ok {
		return reply.NoSuch("webhook_replay", "replay_id", replay)
	}
	r, err := a.Store.Replay(c.UserContext(), request.Scope(c), hook, replay)
	if errors.Is(err, store.ErrNotFound) {
		return reply.NoSuch("webhook_replay", "replay_id", replay)
	}
	if err != nil {
		return err
	}
	return c.JSON(r.JSON())
}

// instant reads a time given as Unix seconds or as an RFC 3339 string.
func instant(o request.Object, name string) (time.Time, *reply.Error) {
	if !o.Present(name) {
		return time.Time{}, o.Missing(name)
	}
	bad := func() *reply.Error {
		return reply.InvalidParam("parameter_invalid", name, "%s must be a Unix timestamp in seconds or an RFC 3339 time.", name)
	}
	if raw := o.Raw(name); len(raw) > 0 && raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return time.Time{}, bad()
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return time.Time{}, bad()
		}
		return t.UTC(), nil
	}
	secs, apiErr := o.IntegerBounded(name, 0, maxUnixSeconds, bad, bad)
	return time.Unix(secs, 0).UTC(), apiErr
}

// replayTypes reads types: known event types, at least one, each once.
func replayTypes(o request.Object) ([]string, *reply.Error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(o.Raw("types"), &raw); err != nil || len(raw) == 0 {
		return nil, o.WrongType("types", "a non-empty array of event types")
	}
	var types []string
	for i, r := range raw {
		var t string
		param := fmt.Sprintf("types[%d]", i)
		if err := json.Unmarshal(r, &t); err != nil || !slices.Contains(store.EventTypes, t) {
			return nil, reply.InvalidParam("parameter_invalid", param, "%s must be one of the event types: %s.", param,
				strings.Join(store.EventTypes, ", "))
		}
		if !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	return types, nil
}
