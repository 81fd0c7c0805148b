package store

import (
	"context"
	"encoding/json"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"payments/store/internal/pg"
	"payments/store/jsonw"
)

// Actor is who asked for a change: recorded with it (an event's actor, the
// change's audit row) and, for people and keys, what they may do.
type Actor struct {
	// ID is how changes record them: "user:<id>", "api_key:<id>",
	// "admin:<command>", "psp" or "system".
	ID string
	// Name is a person's e-mail or a key's name as it was when they asked.
	Name string
	// Role is a person's role in the account they act on (RoleOwner ...).
	Role string
	// Permissions are a restricted key's ("payments:read", ...); nil for a
	// key that may do everything keys do.
	Permissions []string
	// MakerRole bounds a key a person made: that person's role in the
	// account now (RoleGone when they left); "" for a key made by a
	// command. A key is never stronger than its maker.
	MakerRole string
	// Door is where the request came in: dashboard, api, admin, psp, system.
	Door string
	// IP, UserAgent and RequestID describe the request, when there is one.
	IP        string
	UserAgent string
	RequestID string
	// SecondFactorAt is when the person last proved their second factor in
	// this session (zero: not in this session); SecondFactor says they
	// enrolled one.
	SecondFactorAt time.Time
	SecondFactor   bool
}

// Doors a change comes through.
const (
	DoorDashboard = "dashboard"
	DoorAPI       = "api"
	DoorAdmin     = "admin"
	DoorPSP       = "psp"
	DoorSystem    = "system"
	// DoorCheckout is the payer's public pages (a payment link's).
	DoorCheckout = "checkout"
)

// The actors that are not a user, a key or a command.
var (
	ActorPSP    = Actor{ID: "psp", Door: DoorPSP}
	ActorSystem = Actor{ID: "system", Door: DoorSystem}
	// ActorPayer is a payer at a public page, who has no account.
	ActorPayer = Actor{ID: "payer", Door: DoorCheckout}
)

// ActorUser is a person signed in to the dashboard, with no role yet: the
// dashboard's actor carries the role of the account they act on.
func ActorUser(userID string) Actor { return Actor{ID: "user:" + userID, Door: DoorDashboard} }

// ActorAPIKey is an integrator's call with one of the account's keys.
func ActorAPIKey(keyID string) Actor { return Actor{ID: "api_key:" + keyID, Door: DoorAPI} }

// ActorAdmin is an operator's command (payments <command> ...).
func ActorAdmin(command string) Actor {
	return Actor{ID: "admin:" + command, Name: "payments " + command, Door: DoorAdmin}
}

// Kind is what asked: user, api_key, admin, psp or system.
func (a Actor) Kind() string {
	kind, _, _ := strings.Cut(a.ID, ":")
	return kind
}

type actorKey struct{}

// WithActor returns ctx carrying who asked: every change the store makes
// with it records them. Operations set it; a change made without one is
// the service's own (ActorSystem).
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActorOf is who ctx says asked (ActorSystem when no one did).
func ActorOf(ctx context.Context) Actor {
	if a, ok := ctx.Value(actorKey{}).(Actor); ok && a.ID != "" {
		return a
	}
	return ActorSystem
}

// actorOf is the id ctx's actor is recorded by.
func actorOf(ctx context.Context) string { return ActorOf(ctx).ID }

// Changes are the fields a change set, field -> [before, after] (nil
// before: a new object). Never a secret: a secret changing shows as
// "(changed)".
type Changes map[string][2]any

// AuditRecord is one change as the audit trail keeps it.
type AuditRecord struct {
	Scope    Scope
	Action   string
	ObjectID string
	Changes  Changes
}

// Audit records that ctx's actor did the change, in the ambient transaction
// when ctx carries one (the change's own). The row is append-only.
func (s *Store) Audit(ctx context.Context, r AuditRecord) error {
	return s.auditOn(ctx, s.idb(ctx), r)
}

// auditOn is Audit on db (a transaction of the change's).
func (s *Store) auditOn(ctx context.Context, db bun.IDB, r AuditRecord) error {
	_, err := db.NewRaw(`INSERT INTO audit_log (`+auditColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		auditArgs(ctx, r, s.Now())...).Exec(ctx)
	if err != nil {
		return fmt.Errorf("store: audit %s: %w", r.Action, err)
	}
	return nil
}

// auditStatement is auditOn as a prepared statement, for a change that
// writes its audit row in its own pipeline.
func auditStatement(ctx context.Context, r AuditRecord, at time.Time) pg.Statement {
	return pg.Statement{SQL: `INSERT INTO audit_log (` + auditColumns + `)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8::text::inet, $9, $10, $11::text::jsonb, $12)`, Args: auditArgs(ctx, r, at)}
}

// auditColumns are the columns auditArgs fills, in its order.
const auditColumns = `account_id, livemode, action, object_id, actor, actor_name, door, ip, user_agent, request_id, changes, created_at`

// auditArgs is r, by ctx's actor at at, as auditColumns.
func auditArgs(ctx context.Context, r AuditRecord, at time.Time) []any {
	w := auditWhoOf(ctx, r.Changes)
	return []any{r.Scope.AccountID, r.Scope.Livemode, r.Action, r.ObjectID, w.actor, w.Name,
		w.Door, w.IP, w.UserAgent, w.RequestID, string(w.Changes), at}
}

// auditManyOn writes records in db in one statement, all by ctx's actor.
func (s *Store) auditManyOn(ctx context.Context, db bun.IDB, records []AuditRecord) error {
	if len(records) == 0 {
		return nil
	}
	w := auditWhoOf(ctx, nil)
	n := len(records)
	accounts, modes, actions, objects, changes := make([]string, n), make([]bool, n), make([]string, n), make([]string, n), make([]string, n)
	for i, r := range records {
		accounts[i], modes[i], actions[i], objects[i] = r.Scope.AccountID, r.Scope.Livemode, r.Action, r.ObjectID
		b, err := json.Marshal(r.Changes)
		if err != nil {
			return fmt.Errorf("store: audit: %w", err)
		}
		changes[i] = string(b)
	}
	_, err := db.NewRaw(`INSERT INTO audit_log (account_id, livemode, action, object_id, actor, actor_name, door, ip, user_agent,
			request_id, changes, created_at)
		SELECT a, l, act, o, ?, ?, ?, ?::inet, ?, ?, c::jsonb, ?
		FROM unnest(?::text[], ?::boolean[], ?::text[], ?::text[], ?::text[]) AS r(a, l, act, o, c)`,
		w.actor, w.Name, w.Door, w.IP, w.UserAgent, w.RequestID, s.Now(),
		pgdialect.Array(accounts), pgdialect.Array(modes), pgdialect.Array(actions), pgdialect.Array(objects), pgdialect.Array(changes)).Exec(ctx)
	if err != nil {
		return fmt.Errorf("store: audit: %w", err)
	}
	return nil
}

// auditWho is what an audit row says of who asked, as the statements that
// write their audit row with the change take it (one JSON parameter).
type auditWho struct {
	actor     string
	Name      string          `json:"name"`
	Door      string          `json:"door"`
	IP        *string         `json:"ip"`
	UserAgent string          `json:"user_agent"`
	RequestID string          `json:"request_id"`
	Changes   json.RawMessage `json:"changes"`
}

func auditWhoOf(ctx context.Context, changes Changes) auditWho {
	a := ActorOf(ctx)
	w := auditWho{actor: a.ID, Name: a.Name, Door: a.Door, UserAgent: truncateRunes(a.UserAgent, 300),
		RequestID: a.RequestID, Changes: json.RawMessage("{}")}
	if w.Door == "" {
		w.Door = DoorSystem
	}
	w.IP = inetOf(a.IP)
	if len(changes) > 0 {
		if b, err := json.Marshal(changes); err == nil {
			w.Changes = b
		}
	}
	return w
}

// auditJSON is auditWhoOf as the JSON parameter of a statement's audit CTE,
// with changes already JSON: written by hand, for the hottest write.
func auditJSON(ctx context.Context, changes []byte) string {
	w := auditWhoOf(ctx, nil)
	b := make([]byte, 0, 160+len(w.UserAgent)+len(changes))
	b = append(b, `{"name":`...)
	b = jsonw.AppendString(b, w.Name)
	b = append(b, `,"door":`...)
	b = jsonw.AppendString(b, w.Door)
	b = append(b, `,"ip":`...)
	b = jsonw.AppendStringOrNull(b, w.IP)
	b = append(b, `,"user_agent":`...)
	b = jsonw.AppendString(b, w.UserAgent)
	b = append(b, `,"request_id":`...)
	b = jsonw.AppendString(b, w.RequestID)
	b = append(b, `,"changes":`...)
	b = append(b, changes...)
	return string(append(b, '}'))
}

// auditCTEStart + '<action>' + auditCTEEnd write the audit row of each row
// of source (which has account_id, livemode, object_id, actor, created_at
// and who: auditJSON), in the change's own statement.
const (
	auditCTEStart = `audit AS (
		INSERT INTO audit_log (account_id, livemode, action, object_id, actor, actor_name, door, ip, user_agent,
			request_id, changes, created_at)
		SELECT account_id, livemode, `
	auditCTEEnd = `, object_id, actor, who->>'name', who->>'door', (who->>'ip')::inet,
			who->>'user_agent', who->>'request_id', who->'changes', created_at
		FROM source
	)`
)

// inetOf is ip as an inet column takes it (IPv4-mapped addresses as IPv4),
// or nil when it is not an address.
func inetOf(ip string) *string {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return nil
	}
	text := addr.Unmap().String()
	return &text
}

// truncateRunes keeps at most n characters of s.
func truncateRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}
