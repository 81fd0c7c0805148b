package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/uptrace/bun"

	"payments/store/ids"
	"payments/store/internal/pg"
	"payments/store/jsonw"
)

// The dispatcher's hot statements (see doc.go): the claim, and the finish
// of an attempt, one at a time (retries, failures) and in batches (successes).

// ClaimParams bound one claim.
type ClaimParams struct {
	Now   time.Time
	Limit int
	// Lease is how long the claim holds each delivery; an attempt must end well within it.
	Lease time.Duration
	// PerWebhook caps the leased deliveries of one webhook, so one slow
	// receiver cannot occupy every worker.
	PerWebhook int
	Token      string
	// WokenAt is when the dispatcher was woken for this claim, recorded
	// with it (the timeline of slow deliveries).
	WokenAt time.Time
	// Fair share, when Workers > 0: Owner begins every lease token of the
	// claiming process (Token too), whose Workers are shared among the
	// accounts with due deliveries (or leases of its own): while two or
	// more have, each holds at most Workers / their number; one alone
	// leaves Reserve free for the next to come. Webhooks in the slow lane
	// (slow_since) hold at most SlowLane of them together. Workers 0: no
	// shares (one process's tests, the chain).
	Owner    string
	Workers  int
	Reserve  int
	SlowLane int
	// AfterDue and AfterID, when set, are where a success's run of next
	// deliveries starts looking (next_attempt_at, id): past what the asking
	// process already holds of its webhook's queue (see finishSuccessesSQL).
	AfterDue time.Time
	AfterID  string
}

// claimSQL leases due deliveries and returns them with their events. The
// webhooks it considers are, past fewWebhooks enabled ones, those with a
// pending delivery, found by skipping through webhook_deliveries_claim_idx
// one webhook at a time (busy: one probe per such webhook and one more):
// reading every enabled webhook made each claim probe every partition's
// indexes once per webhook of the platform, 22 ms a claim with 1,000
// webhooks and five months of partitions, while most have nothing to send
// (BENCHMARKS.md, "Issue 33, third step"). Up to fewWebhooks, it reads
// them all: finding the busy ones first would cost more probes than it
// saves (the drain to four webhooks, all busy, was 6% slower for it).
// Each webhook considered gets room for PerWebhook ($2) workers less those
// holding its leases (slots: see leaseSlotSQL; every live lease is read
// once, in leases, for every webhook's slots and this process's own)
// and, when it has a rate limit, for rate_limit claims less those it made in
// the last rateWindow (by PostgreSQL's clock once the claim runs: the
// caller's $1 was read before it waited for the pool and the claim lock, and
// a claim stamped with that stale time let the next one, in the same real
// second, see room again); its earliest due deliveries fill the room (one probe
// of webhook_deliveries_claim_idx per webhook: dueOfRoomSQL; never more than
// Limit each, which is all a claim takes: a worker freed claims one, and with
// 1,000 busy webhooks reading 8 of each made a claim sort 8,000 rows to take
// one). Past fewWebhooks, no more of each than its share of Limit among the
// webhooks with room whose earliest pending delivery is due (spread: the
// skip scan finds that delivery with the webhook, in the same probe), and
// a webhook alone with due deliveries still fills its room. One whose due
// deliveries are all in flight counts too and gives none, so a claim may
// take fewer than it could; the next one (every event claims, and every
// worker freed after a claim that says it left some: more) takes the rest.
//
// Past fewWebhooks, not every busy webhook is probed either: those a worker
// holds and the ordered ones (worked: their earliest pending delivery may
// be leased, or wait for an earlier one of its object) are, and of the
// idle ones (no slot held, unordered, earliest pending delivery due: that
// delivery is theirs to take) only each account's earliest few, as many as
// the account may still take (chosen: its share less its slots, at most
// Limit). An idle webhook left out has that many of its account's due
// deliveries before its own, so no turn would reach it: the claim leases
// what probing every busy webhook leased (except that rows no turn reaches
// no longer count against the slow lane), and its shares count the same
// accounts (those of worked, idle and mine), for a thousand probes fewer a
// claim at 1,000 busy webhooks of 100 accounts (BENCHMARKS.md, "A claim
// probes the idle webhooks it can take from").
//
// Of those, each account
// gets its share of the claiming process's workers less the slots it holds
// there (mine: this process's leases, by their tokens' Owner prefix, a few
// rows of webhook_deliveries_leased_idx), and the slow lane its own, and
// they are taken in turns across accounts, each account's earliest first,
// up to Limit ($3). Only those are locked (locked: each by its key and
// ctid, a TID fetch, FOR UPDATE SKIP LOCKED and due again on the row's
// latest version): the choice reads the busy webhooks' earliest due
// deliveries unlocked, and locking them as read wrote a row lock into
// every one, 1,000 a claim at 1,000 busy webhooks to lease one
// (BENCHMARKS.md, "A claim locks what it leases"). One another
// transaction took meanwhile (a run's lease) is skipped, as SKIP LOCKED
// skipped it before. Shares per process add up to shares of every process's
// workers together, with no process needing to know the others. A limited
// webhook's claims are stamped in
// rate_claims. Claims run one at a time across every dispatcher process
// (claimLockSQL before it, in the same transaction), so the room each sees
// counts every lease and claim made before: the cap and the rate hold
// however many dispatchers run. It is one prepared statement, planned once
// per connection: the dispatcher claims on every event's notification, and
// planning this query each time was most of a claim's cost. Its commit is
// relaxed, for the reason pg.RelaxedCommit gives.
//
// Planned once per connection, the plan must hold as the month's partition
// fills: leases reads the live leases in the order they expire, which
// (sorts being off, claimPlan) only the partial index of leased deliveries
// gives (migration 060). Left to the statistics, a plan made while the
// partition was small or mostly leased scanned it whole, or its primary
// key up to queuedBefore, or every delivery in webhook order, at every
// claim after: 16 of 49 sampled claims in make bench's e2e phase, 40
// buffers each and growing with the month; 4,509 buffers for 4 leases
// among 20,000 rows, and 2 now (BENCHMARKS.md, "A claim's plan, made
// once, reads the leases by their index").
const claimSQL = `
	WITH relax AS (
		SELECT ` + pg.RelaxedCommit + `
	), clock AS MATERIALIZED (
		SELECT clock_timestamp() AS now
	), few AS MATERIALIZED (
		SELECT NOT EXISTS (SELECT 1 FROM webhooks WHERE enabled OFFSET ` + fewWebhooks + `) AS yes
	), busy AS MATERIALIZED (
		SELECT w.id AS webhook_id, NULL::timestamptz AS first_due, NULL::text AS first_id
		FROM webhooks w WHERE w.enabled AND (SELECT yes FROM few)
		UNION ALL (
			WITH RECURSIVE next(webhook_id, first_due, first_id) AS (
				(SELECT d.webhook_id, d.next_attempt_at, d.id FROM webhook_deliveries d WHERE d.status = 'pending' AND d.id < $11
					ORDER BY d.webhook_id, d.next_attempt_at, d.id LIMIT 1)
				UNION ALL
				SELECT n.webhook_id, n.next_attempt_at, n.id FROM next CROSS JOIN LATERAL (
					SELECT d.webhook_id, d.next_attempt_at, d.id FROM webhook_deliveries d
					WHERE d.status = 'pending' AND d.webhook_id > next.webhook_id AND d.id < $11
					ORDER BY d.webhook_id, d.next_attempt_at, d.id LIMIT 1
				) n
			)
			SELECT webhook_id, first_due, first_id FROM next WHERE NOT (SELECT yes FROM few)
		)
	), leases AS MATERIALIZED (
		SELECT l.webhook_id, l.account_id, ` + leaseSlotSQL + ` AS slot, starts_with(l.lease_token, $7::text) AS mine
		FROM webhook_deliveries l
		WHERE l.lease_token IS NOT NULL AND l.lease_expires_at > $1 AND l.id < $11
		ORDER BY l.lease_expires_at -- by the leased index, whatever the statistics (see above)
	), mine AS MATERIALIZED (
		SELECT l.account_id, l.slot, w.slow_since IS NOT NULL AS slow
		FROM leases l JOIN webhooks w ON w.id = l.webhook_id
		WHERE l.mine
	), slots AS MATERIALIZED (
		SELECT webhook_id, count(DISTINCT slot) AS n FROM leases GROUP BY webhook_id
	), room AS MATERIALIZED (
		SELECT busy.webhook_id, busy.first_due, busy.first_id, w.account_id, w.slow_since IS NOT NULL AS slow,
			w.rate_limit, w.ordered, coalesce(slots.n, 0) AS slots, least($2 - coalesce(slots.n, 0),
				CASE WHEN w.rate_limit IS NULL THEN $2 ELSE w.rate_limit - (
					SELECT count(*) FROM unnest(w.rate_claims) t WHERE t > (SELECT now FROM clock) - ` + rateWindowSQL + `
				) END) AS n
		FROM busy JOIN webhooks w ON w.id = busy.webhook_id LEFT JOIN slots ON slots.webhook_id = busy.webhook_id
		WHERE w.enabled AND (w.paused_until IS NULL OR w.paused_until <= $1)
	), spread AS MATERIALIZED (
		SELECT CASE WHEN (SELECT yes FROM few) THEN $3::bigint
			ELSE greatest(ceil($3::numeric / greatest(count(*), 1)), 1)::bigint END AS n
		FROM room WHERE room.first_due <= $1 AND room.n > 0
	), worked AS MATERIALIZED (
		SELECT due.id, due.ctid, due.next_attempt_at, room.webhook_id, room.account_id, room.slow, room.rate_limit
		FROM room CROSS JOIN LATERAL (` + dueOfRoomSQL + `) due
		WHERE (SELECT yes FROM few) OR room.slots > 0 OR room.ordered
	), idle AS MATERIALIZED (
		SELECT room.*, row_number() OVER (PARTITION BY room.account_id ORDER BY room.first_due, room.first_id) AS rank
		FROM room
		WHERE NOT (SELECT yes FROM few) AND room.slots = 0 AND NOT room.ordered AND room.n > 0 AND room.first_due <= $1
	), share AS MATERIALIZED (
		SELECT CASE WHEN count(*) <= 1 THEN $8::bigint - $9::bigint ELSE greatest($8::bigint / count(*), 1) END AS n
		FROM (SELECT account_id FROM worked UNION SELECT account_id FROM idle UNION SELECT account_id FROM mine) accounts
	), held AS MATERIALIZED (
		SELECT account_id, count(DISTINCT slot) AS n FROM mine GROUP BY account_id
	), chosen AS MATERIALIZED (
		SELECT idle.* FROM idle LEFT JOIN held ON held.account_id = idle.account_id
		WHERE idle.rank <= least($3::bigint, (SELECT n FROM share) - coalesce(held.n, 0))
	), idle_due AS (
		SELECT due.id, due.ctid, due.next_attempt_at, room.webhook_id, room.account_id, room.slow, room.rate_limit
		FROM chosen room CROSS JOIN LATERAL (` + dueOfRoomSQL + `) due
	), due AS MATERIALIZED (
		SELECT d.*, row_number() OVER (PARTITION BY d.account_id ORDER BY d.next_attempt_at, d.id) AS account_turn,
			row_number() OVER (PARTITION BY d.slow ORDER BY d.next_attempt_at, d.id) AS lane_turn
		FROM (SELECT * FROM worked UNION ALL SELECT * FROM idle_due) d
	), picked AS (
		SELECT due.id, due.ctid, due.webhook_id, due.rate_limit FROM due
		LEFT JOIN held ON held.account_id = due.account_id
		WHERE due.account_turn <= (SELECT n FROM share) - coalesce(held.n, 0)
			AND (NOT due.slow OR due.lane_turn <= $10::bigint - (SELECT count(DISTINCT slot) FROM mine WHERE mine.slow))
		ORDER BY due.account_turn, due.next_attempt_at, due.id
		LIMIT $3
	), locked AS MATERIALIZED (
		SELECT picked.id, picked.ctid, picked.webhook_id, picked.rate_limit FROM picked
		CROSS JOIN LATERAL (
			SELECT 1 FROM webhook_deliveries d
			WHERE d.id = picked.id AND d.ctid = picked.ctid AND d.id < $11
				AND d.status = 'pending' AND (d.lease_expires_at IS NULL OR d.lease_expires_at <= $1)
			FOR UPDATE SKIP LOCKED
		) free
	), leased AS (
		UPDATE webhook_deliveries d
		SET lease_token = $4 || '.' || locked.n, lease_expires_at = $5, attempts = d.attempts + 1, updated_at = $1,
			claimed_at = clock_timestamp(), woken_at = $6
		FROM (SELECT id, ctid, row_number() OVER () AS n FROM locked) locked
		WHERE d.id = locked.id AND d.ctid = locked.ctid AND d.id < $11
		RETURNING d.*
	), stamped AS (
		UPDATE webhooks w SET rate_claims = array(
			SELECT t FROM unnest(w.rate_claims) t WHERE t > (SELECT now FROM clock) - ` + rateWindowSQL + `
			UNION ALL SELECT (SELECT now FROM clock) FROM generate_series(1, p.n))
		FROM (SELECT webhook_id, count(*) AS n FROM locked WHERE rate_limit IS NOT NULL GROUP BY webhook_id) p
		WHERE w.id = p.webhook_id
	), more AS MATERIALIZED (
		-- Whether due deliveries may wait that this claim left (Claimed.More):
		-- a webhook without room (its cap, its rate), an ordered one with a
		-- delivery in flight (the next of its object waits for it), idle
		-- webhooks or due deliveries past the shares and the limit, a webhook
		-- that gave all it could (it may have more).
		SELECT EXISTS (SELECT 1 FROM room WHERE room.n <= 0 OR (room.ordered AND room.slots > 0))
			OR EXISTS (SELECT 1 FROM locked JOIN room ON room.webhook_id = locked.webhook_id WHERE room.ordered)
			OR (SELECT count(*) FROM idle) > (SELECT count(*) FROM chosen)
			OR (SELECT count(*) FROM due) > (SELECT count(*) FROM locked)
			OR EXISTS (SELECT 1 FROM due JOIN room ON room.webhook_id = due.webhook_id
				GROUP BY room.webhook_id, room.n HAVING count(*) >= least(room.n, (SELECT n FROM spread))) AS yes
	)
	-- A row per leased delivery; one of NULLs when none, for more's answer.
	SELECT (SELECT count(*) FROM relax), (SELECT yes FROM more),
		l.id, l.event_id, l.webhook_id, l.account_id, l.livemode, l.event_type, l.status, l.attempts,
		l.next_attempt_at, l.lease_token, l.lease_expires_at, l.last_status_code, l.last_error,
		l.created_at, l.updated_at, l.completed_at,
		e.account_id, e.livemode, e.type, e.object_id, e.data::text, e.created_at, e.traceparent, e.tracestate,
		(SELECT w.xmin::text FROM webhooks w WHERE w.id = l.webhook_id)
	FROM (SELECT 1) AS one LEFT JOIN (leased l JOIN events e ON e.id = l.event_id) ON true
	ORDER BY l.next_attempt_at, l.id`

// dueOfRoomSQL reads webhook room's earliest due deliveries that no lease
// holds and, while the webhook is ordered, no earlier delivery of their
// object waits for: no more than its room, nor than its share of the claim
// (spread). Turning ordered off clears its queued deliveries' order_key
// (UpdateWebhook); one the outbox wrote meanwhile, from a snapshot that
// still saw it on, is not held either.
const dueOfRoomSQL = `
			SELECT d.id, d.ctid, d.next_attempt_at FROM webhook_deliveries d
			WHERE d.webhook_id = room.webhook_id AND d.status = 'pending' AND d.next_attempt_at <= $1 AND d.id < $11
				AND (d.lease_expires_at IS NULL OR d.lease_expires_at <= $1)
				AND (d.order_key IS NULL OR NOT room.ordered OR NOT EXISTS (` + earlierOfItsObjectSQL + `))
			ORDER BY d.next_attempt_at, d.id
			LIMIT greatest(least(room.n, (SELECT n FROM spread)), 0) -- the claim takes no more than $3 of all
		`

// earlierOfItsObjectSQL finds a delivery queued before delivery d with its
// order_key (its webhook and object), which only pending deliveries carry:
// while there is one (being attempted, or waiting for its retry), d waits;
// one that ended (succeeded, or given up) no longer holds it. One probe of
// webhook_deliveries_order_idx, the only index that can answer it
// (migration 040 says why the key holds the webhook and the status).
// A success's chain asks the same (finishSuccessesTail), less the
// deliveries its own batch is finishing, still pending in its snapshot;
// both name the delivery they ask about d.
const earlierOfItsObjectSQL = `SELECT 1 FROM webhook_deliveries earlier
				WHERE earlier.order_key = d.order_key AND (earlier.created_at, earlier.id) < (d.created_at, d.id)`

// leaseSlotSQL is the slot (the worker) holding lease l: a claim leases each
// delivery to a worker of its own, under its token and the delivery's
// number ("token.3"); what that worker's successes lease after it (a run of
// its webhook's next deliveries, FinishSuccesses) carries the slot and a
// suffix ("token.3/x"). A worker attempts its deliveries one after another,
// so a webhook's requests in flight are at most its slots, and the caps
// (PerWebhook, the fair shares, the slow lane) count slots, not leased
// deliveries: a worker may hold the next few of its webhook's deliveries
// while it attempts one, without taking another worker's room.
const leaseSlotSQL = `split_part(l.lease_token, '/', 1)`

// queuedBefore bounds the ids of the deliveries a claim or a run reads
// (d.id < it), so that PostgreSQL skips the partitions made ahead for the
// months to come (store.MonthsAhead) as the statement starts: their
// indexes are empty, but a claim probed each of them once per busy webhook
// in every walk it made, a third of the buffers it read at 1,000 webhooks
// (BENCHMARKS.md, "The month ahead"). A delivery's id is minted from its
// event's stem, by the clock of the host that wrote the event; an hour of
// margin keeps the deliveries of a host whose clock runs ahead of this
// one's, by less than that, from waiting.
func queuedBefore() string {
	return ids.Floor(ids.PrefixDelivery, time.Now().Add(time.Hour))
}

// fewWebhooks is how many enabled webhooks a claim reads every one of (see claimSQL).
const fewWebhooks = "16"

// claimLockSQL serializes claims across dispatcher processes: a transaction
// lock, released when the claim commits. Claims are short (one statement),
// so waiting for another costs little; without it two claims at once would
// each see room the other is taking (found: 15 requests in flight on a
// webhook capped at 8, with two dispatchers).
const claimLockSQL = `SELECT pg_advisory_xact_lock(` + ClaimLock + `), ` + claimPlan

// ClaimLock is the advisory lock's key every claim takes ("claiming" as a
// number): whoever holds it holds every dispatcher's claims back (the load
// generator, to queue a backlog whole before timing its drain).
const ClaimLock = "7164523876533445997"

// claimPlan makes each webhook's due deliveries a walk of its claim
// index that stops at the claim's limit, however many are due. The table
// is partitioned, so that walk is a Merge Append of each partition's
// index, and the planner chooses it only while it expects many due rows:
// with its statistics taken while few were pending (any quiet hour before
// a receiver's outage), it appended every partition's due rows and sorted
// them to take a few, and a backlog of 40,000 made every claim read and
// sort 7,672 rows per webhook, 3 ms a claim (BENCHMARKS.md, "Claims at any
// backlog"). The claim's other sorts (its turns) have no alternative and
// stay. A disabled sort adds a huge cost to the plan's estimate, and past
// jit_above_cost PostgreSQL compiles the plan with LLVM at every execution
// (1.1 s a claim): the claim is short, so never.
//
// And the plan is generic, made once per connection: left to PostgreSQL's
// choice (plan_cache_mode auto), the generic plan's estimate, as huge as
// the custom plans' (their turns' sorts), was a little larger, and the
// connection planned every claim afresh, 2.5-5.5 ms each: 3,189 plans for
// 3,188 claims in a make bench run on one connection (pg_stat_statements;
// BENCHMARKS.md, "... and the claim planned at every call").
const claimPlan = `set_config('enable_sort', 'off', true), ` +
	`set_config('plan_cache_mode', 'force_generic_plan', true), ` + pg.NoJIT

// rateWindowSQL is the window a webhook's rate limit counts claims in: a
// second and a margin for the time between a claim and the request
// reaching the receiver, so that no second at the receiver holds more than
// rate_limit requests.
const rateWindowSQL = `interval '1100 milliseconds'`

// Claimed is what a claim leased, and whether it may have left due
// deliveries waiting (More): for a cap, a share, its limit, or behind a
// delivery in flight of an ordered webhook. Nothing more can be due for a
// worker freed to find when More is false, until new events come (their
// NOTIFY wakes the dispatcher) or a retry falls due (its poll): a worker
// freed after a claim that left nothing claimed again all the same, and
// found nothing, one claim in two at 200 events a second (BENCHMARKS.md,
// "An event's round trips").
type Claimed struct {
	Deliveries []Delivery
	More       bool
}

// ClaimDeliveries is Claim's deliveries.
func (s *Store) ClaimDeliveries(ctx context.Context, p ClaimParams) ([]Delivery, error) {
	c, err := s.Claim(ctx, p)
	return c.Deliveries, err
}

// Claim leases up to Limit due deliveries of enabled webhooks, counting
// the attempt, and returns them with their webhook and event. The claim is
// one short statement (FOR UPDATE SKIP LOCKED); the HTTP happens outside
// any transaction, and a finish only lands while the lease holds.
func (s *Store) Claim(ctx context.Context, p ClaimParams) (Claimed, error) {
	var (
		out      []Delivery
		more     bool
		versions []string // of each delivery's webhook row, as the claim saw it
	)
	workers, reserve, slowLane := p.Workers, p.Reserve, p.SlowLane
	if workers <= 0 { // no shares: room for every claim, whoever holds leases
		workers, reserve, slowLane = math.MaxInt32, 0, math.MaxInt32
	}
	stmts := []pg.Statement{{SQL: claimLockSQL},
		{SQL: claimSQL, Args: []any{p.Now, p.PerWebhook, p.Limit, p.Token, p.Now.Add(p.Lease), p.WokenAt,
			p.Owner, workers, reserve, slowLane, queuedBefore()}}}
	err := s.claims.Pipelined(ctx, stmts, func(stmt int, rows pgx.Rows) error {
		if stmt == 0 {
			return nil
		}
		var relaxed int
		for rows.Next() {
			if rows.RawValues()[2] == nil { // the row of none leased
				dest := make([]any, len(rows.RawValues()))
				dest[0], dest[1] = &relaxed, &more
				if err := rows.Scan(dest...); err != nil {
					return err
				}
				continue
			}
			var (
				d       Delivery
				e       Event
				data    []byte // a copy of its own: no string to copy again
				version string
			)
			if err := rows.Scan(&relaxed, &more,
				&d.ID, &d.EventID, &d.WebhookID, &d.AccountID, &d.Livemode, &d.EventType, &d.Status, &d.Attempts,
				&d.NextAttemptAt, &d.LeaseToken, &d.LeaseExpiresAt, &d.LastStatusCode, &d.LastError,
				&d.CreatedAt, &d.UpdatedAt, &d.CompletedAt,
				&e.AccountID, &e.Livemode, &e.Type, &e.ObjectID, &data, &e.CreatedAt, &e.TraceParent, &e.TraceState,
				&version); err != nil {
				return err
			}
			e.ID, e.Data = d.EventID, data
			d.Event = &e
			out = append(out, d)
			versions = append(versions, version)
		}
		return rows.Err()
	})
	if err != nil {
		return Claimed{}, fmt.Errorf("store: claim deliveries: %w", err)
	}
	if len(out) == 0 {
		return Claimed{More: more}, nil
	}
	if out, err = s.withWebhooks(ctx, out, versions); err != nil {
		return Claimed{}, fmt.Errorf("store: claimed deliveries' webhooks: %w", err)
	}
	return Claimed{Deliveries: out, More: more}, nil
}

// withWebhooks gives claimed deliveries their webhooks: the copy read
// before while the webhook's row is at the version the claim saw
// (versions, one per delivery), else read again, once each, in one
// prepared query. A delivery whose webhook was deleted since the claim
// (its deliveries went with it) is dropped.
func (s *Store) withWebhooks(ctx context.Context, deliveries []Delivery, versions []string) ([]Delivery, error) {
	var stale []string
	for i := range deliveries {
		d := &deliveries[i]
		if d.Webhook = s.webhookCopies.get(d.WebhookID, versions[i]); d.Webhook == nil && !slices.Contains(stale, d.WebhookID) {
			stale = append(stale, d.WebhookID)
		}
	}
	if len(stale) == 0 {
		return deliveries, nil
	}
	hooks, err := s.webhooksByID(ctx, stale)
	if err != nil {
		return nil, err
	}
	kept := deliveries[:0]
	for _, d := range deliveries {
		if d.Webhook == nil {
			d.Webhook = webhookIn(hooks, d.WebhookID)
		}
		if d.Webhook != nil {
			kept = append(kept, d)
		}
	}
	return kept, nil
}

// webhooksByID reads the webhooks with these ids, with their rows'
// versions, in one prepared query, and remembers them (webhookCopies); an
// id no webhook has is left out.
func (s *Store) webhooksByID(ctx context.Context, webhookIDs []string) ([]Webhook, error) {
	rows, err := s.db.DB.QueryContext(ctx, `SELECT *, xmin::text AS row_version FROM webhooks WHERE id = ANY($1)`, pg.Prepared(webhookIDs)...)
	if err != nil {
		return nil, err
	}
	var hooks []Webhook
	if err := s.db.ScanRows(ctx, rows, &hooks); err != nil {
		return nil, err
	}
	s.webhookCopies.keep(hooks)
	return hooks, nil
}

// webhookIn is the webhook of hooks with this id, or nil.
func webhookIn(hooks []Webhook, id string) *Webhook {
	for i := range hooks {
		if hooks[i].ID == id {
			return &hooks[i]
		}
	}
	return nil
}

// insertAttemptSQL records an attempt; attemptArgs gives its parameters. A
// finish retried after its answer was lost (the first one did commit) finds
// its attempt there already.
const insertAttemptSQL = `WITH attempt AS (
		INSERT INTO delivery_attempts (id, delivery_id, webhook_id, event_id, event_type,
			attempt, request_url, request_headers, request_body, response_status, response_headers, response_body,
			duration_ms, error_class, error_message, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
		ON CONFLICT (id) DO NOTHING
		RETURNING webhook_id, response_status, created_at
	), ` + tallyAttemptsCTE + `
	SELECT 1`

// tallyAttemptsCTE adds the attempts a statement's CTE named attempt
// wrote (RETURNING webhook_id, response_status, created_at) to their
// webhook's hour in webhook_hours (migration 034): the overview's success
// rates. An attempt found there already (a finish tried again) returns no
// row and is not counted twice. Sharded by connection: the dispatcher's
// workers finish one webhook's attempts side by side; rows are taken in
// key order, so two finishes sharing a shard cannot wait on each other
// in a circle.
const tallyAttemptsCTE = `tallied AS (
		INSERT INTO webhook_hours AS h (webhook_id, hour, shard, attempts, succeeded)
		SELECT webhook_id, date_trunc('hour', created_at, 'UTC'), pg_backend_pid() % 8, count(*),
			count(*) FILTER (WHERE response_status BETWEEN 200 AND 299)
		FROM attempt GROUP BY 1, 2 ORDER BY 1, 2
		ON CONFLICT (webhook_id, hour, shard) DO UPDATE
		SET attempts = h.attempts + excluded.attempts, succeeded = h.succeeded + excluded.succeeded
	)`

func attemptArgs(a *DeliveryAttempt) []any {
	return []any{a.ID, a.DeliveryID, a.WebhookID, a.EventID, a.EventType, a.Attempt, a.RequestURL,
		headersJSON(a.RequestHeaders, jsonw.AppendStringMap), a.RequestBody, a.ResponseStatus,
		headersJSON(a.ResponseHeaders, jsonw.AppendStringsMap), a.ResponseBody, a.DurationMS, a.ErrorClass,
		a.ErrorMessage, a.CreatedAt}
}

// headersJSON renders an attempt's headers for their jsonb column with
// appendMap, or nil (NULL) when there are none. Every attempt writes two
// header maps; encoding/json's reflection was a twentieth of the
// dispatcher's CPU. A delivery's eleven request headers take about 600
// bytes, so the buffer starts at 64 a header rather than growing twice.
// The bytes go to pgx as they are (as text or jsonb), not copied into a
// string first.
func headersJSON[M ~map[string]V, V any](m M, appendMap func([]byte, M) []byte) []byte {
	if m == nil {
		return nil
	}
	return appendMap(make([]byte, 0, 64*len(m)+2), m)
}

// appendHeadersJSON is headersJSON rendered at the end of arena: the JSON
// (nil when m is), and the arena grown by it.
func appendHeadersJSON[M ~map[string]V, V any](arena []byte, m M, appendMap func([]byte, M) []byte) (json, grown []byte) {
	if m == nil {
		return nil, arena
	}
	start := len(arena)
	arena = appendMap(arena, m)
	return arena[start:len(arena):len(arena)], arena
}

// headerArenas keep the buffer a batch of successes renders its attempts'
// header maps into (finishSuccessesArgs), for the next batch: the JSON is
// garbage once the batch is encoded, and each map rendered into a buffer
// of its own was, after pgx's copies, the dispatcher's largest allocation
// (BENCHMARKS.md, "A batch's buffer, kept"). Up to 256 kB kept: 32
// successes' headers take about 30 kB.
var headerArenas = pg.Buffers{Max: 256 << 10}

// DeliveryOutcome is what the dispatcher decided after an attempt that did
// not succeed.
type DeliveryOutcome struct {
	Status        string // pending (retry) or failed
	NextAttemptAt time.Time
	StatusCode    *int
	Error         *string
	// DisableReason, when set, disables the webhook (a 410 Gone).
	DisableReason string
	// AutoDisableAfter and AutoDisableFailures disable a webhook whose
	// failure streak is at least that old and that long.
	AutoDisableAfter    time.Duration
	AutoDisableFailures int
	// PauseUntil, when set (a 429 or 503 with Retry-After), pauses the
	// webhook's other deliveries until then.
	PauseUntil *time.Time
}

// FinishFailure records an attempt that did not succeed and applies the
// outcome, with the webhook's failure streak, in one transaction. The
// delivery changes only while token still holds its lease (a lease that
// expired mid-attempt was claimed again by someone else); the attempt is
// recorded either way, because the request was sent. It reports whether
// the lease still held.
func (s *Store) FinishFailure(ctx context.Context, d *Delivery, token string, out DeliveryOutcome,
	attempt *DeliveryAttempt,
) (bool, error) {
	args := attemptArgs(attempt)
	var held bool
	err := s.db.RunInTx(s.takesConn(ctx, "a failure's record"), nil, func(ctx context.Context, btx bun.Tx) error {
		tx := btx.Tx
		if _, err := tx.ExecContext(ctx, "SELECT "+pg.RelaxedCommit, pg.Prepared()...); err != nil {
			return fmt.Errorf("store: relax commit: %w", err)
		}
		if _, err := tx.ExecContext(ctx, insertAttemptSQL, pg.Prepared(args...)...); err != nil {
			return fmt.Errorf("store: record attempt: %w", err)
		}
		now := attempt.CreatedAt
		res, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries
			SET status = $1::text, next_attempt_at = $2, lease_token = NULL, lease_expires_at = NULL,
				last_status_code = $3, last_error = $4, updated_at = $5,
				completed_at = CASE WHEN $1::text <> 'pending' THEN $5::timestamptz ELSE completed_at END,
				order_key = CASE WHEN $1::text <> 'pending' THEN NULL ELSE order_key END
			WHERE id = $6 AND lease_token = $7`,
			pg.Prepared(out.Status, out.NextAttemptAt, out.StatusCode, out.Error, now, d.ID, token)...)
		if err != nil {
			return fmt.Errorf("store: finish delivery: %w", err)
		}
		n, _ := res.RowsAffected()
		if held = n == 1; !held {
			return nil
		}
		if out.PauseUntil != nil {
			_, err = tx.ExecContext(ctx, `UPDATE webhooks SET paused_until = greatest(paused_until, $2) WHERE id = $1`,
				pg.Prepared(d.WebhookID, *out.PauseUntil)...)
			if err != nil {
				return fmt.Errorf("store: pause webhook: %w", err)
			}
		}
		var disabledNow bool
		if out.DisableReason != "" {
			err = tx.QueryRowContext(ctx, `UPDATE webhooks AS w SET enabled = false, disabled_reason = $2, updated_at = $3
				FROM (SELECT id, enabled FROM webhooks WHERE id = $1) AS old
				WHERE w.id = old.id RETURNING old.enabled`, pg.Prepared(d.WebhookID, out.DisableReason, now)...).Scan(&disabledNow)
		} else {
			err = tx.QueryRowContext(ctx, failureStreakSQL, pg.Prepared(d.WebhookID, now,
				now.Add(-out.AutoDisableAfter), out.AutoDisableFailures, DisabledFailing)...).Scan(&disabledNow)
		}
		if err != nil {
			return fmt.Errorf("store: webhook health: %w", err)
		}
		if disabledNow {
			// The account's owners and admins hear of it by e-mail, in
			// this transaction (the outbox).
			return s.mailWebhookDisabled(ctx, btx, d.WebhookID)
		}
		return nil
	})
	return held, err
}

// failureStreakSQL extends webhook $1's run of failures by one made at $2,
// and disables it when the run started at or before $3 and has $4 failures
// or more (reason $5). It answers whether this failure disabled it.
const failureStreakSQL = `UPDATE webhooks AS w SET failing_since = coalesce(w.failing_since, $2),
		failures_since = w.failures_since + 1,
		enabled = w.enabled AND NOT (coalesce(w.failing_since, $2) <= $3 AND w.failures_since + 1 >= $4),
		disabled_reason = CASE WHEN w.enabled AND coalesce(w.failing_since, $2) <= $3 AND w.failures_since + 1 >= $4
			THEN $5 ELSE w.disabled_reason END
	FROM (SELECT id, enabled FROM webhooks WHERE id = $1) AS old
	WHERE w.id = old.id
	RETURNING old.enabled AND NOT w.enabled`

// A success is the dispatcher's common case, and its bookkeeping is most of
// a delivery's database work. finishSuccessesSQL records a batch of
// concurrent successes (the dispatcher gathers them) in one statement:
// their attempts, each delivery marked succeeded while its own lease holds,
// the end of each webhook's failure streak, and (for those chaining) leases
// on each one's webhook's next due deliveries, as many as it asks for. One
// statement for the batch instead of one per success: a drain's PostgreSQL profile had a
// seventh of its CPU in starting the executor for each success's statement,
// and pgx a ninth of the dispatcher's in encoding each one's parameters.
// The successes come as arrays of equal length, one element each, numbered
// from 1 by ORDINALITY; the statement answers a row per next delivery it
// leased, led by its success's number, and one for each success that
// leased none (whether its lease held).
//
// Each webhook's next deliveries are picked by one walk of the claim index
// (the lateral subquery: as many as that webhook's chaining successes ask
// for together, each once, SKIP LOCKED past what others hold) and handed
// out in due order by row number, each success its run; a webhook with a
// rate limit never chains (its every attempt goes through the claim, which
// counts it). The batch's own deliveries are never picked: the statement
// updates them itself, and in the snapshot its CTEs share they are still
// pending (and due again, if a lease ran out before its success came back).
//
// The walk starts after the earliest place in the queue its successes give
// (after_due, after_id: the finished delivery's own, or where the asking
// process has leased its webhook's queue up to, ClaimParams.AfterDue):
// every finished delivery leaves a dead entry in
// webhook_deliveries_claim_idx until vacuum, so a walk from the queue's head
// would step over all of them, and draining a backlog of n would cost O(n²);
// and the runs the process's other workers hold lie between a finished
// delivery and that frontier: a walk from the finished one steps over all
// of them (up to a hundred leased rows a walk, draining to four webhooks).
// An ordered webhook's walk starts at the finished delivery: the next of
// its object, held back until now, is right after it.
// What a chain leaves behind it (a delivery whose lease expired, one a
// concurrent walk skipped) is the claim query's, which always starts at the
// head.
// finishSuccessesSQL records a batch of successes; finishSuccessesAgainSQL
// is the same for a batch holding a finish tried again after a failure
// that may have committed (the database went away before its answer): its
// attempt rows may be there already. Only that rare batch pays for ON
// CONFLICT: speculative insertion made the statement about 10% dearer per
// call in the drains (pg_stat_statements, alternating runs; BENCHMARKS.md).
const (
	finishSuccessesSQL      = finishSuccessesHead + finishSuccessesTail
	finishSuccessesAgainSQL = finishSuccessesHead + "\n\t\tON CONFLICT (id) DO NOTHING" + finishSuccessesTail
)

const finishSuccessesHead = `
	WITH f AS MATERIALIZED (
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[],
			$8::text[], $9::text[], $10::int[], $11::text[], $12::bytea[], $13::int[], $14::text[], $15::text[],
			$16::timestamptz[], $17::text[], $18::text[], $19::timestamptz[], $20::int[], $21::timestamptz[],
			$22::text[])
			WITH ORDINALITY AS f(attempt_id, delivery_id, webhook_id, event_id, event_type, attempt, request_url,
				request_headers, request_body, response_status, response_headers, response_body, duration_ms,
				error_class, error_message, at, token, next_token, next_expiry, want, after_due, after_id, i)
	), attempt AS (
		INSERT INTO delivery_attempts (id, delivery_id, webhook_id, event_id, event_type, attempt, request_url,
			request_headers, request_body, response_status, response_headers, response_body, duration_ms,
			error_class, error_message, created_at)
		SELECT attempt_id, delivery_id, webhook_id, event_id, event_type, attempt, request_url,
			request_headers::jsonb, request_body, response_status, response_headers::jsonb, response_body,
			duration_ms, error_class, error_message, at
		FROM f`

const finishSuccessesTail = `
		RETURNING webhook_id, response_status, created_at
	), ` + tallyAttemptsCTE + `, finished AS (
		UPDATE webhook_deliveries d
		SET status = 'succeeded', lease_token = NULL, lease_expires_at = NULL, last_status_code = f.response_status,
			last_error = NULL, updated_at = f.at, completed_at = f.at, order_key = NULL
		FROM f
		-- Not "lease_token = f.token": the planner could then read the
		-- partial index of leased deliveries (implied by it) for each
		-- success, every lease of the webhook, rather than probe its key
		-- (5,000 buffers a batch of 32, with the workers' runs leased).
		WHERE d.id = f.delivery_id AND d.lease_token IS NOT DISTINCT FROM f.token
		RETURNING f.i, f.webhook_id, f.delivery_id, f.want, f.next_token, f.next_expiry, f.at, f.after_due, f.after_id
	), healed AS (
		-- A success ends a failure streak; a webhook that was not failing is
		-- not written (nor locked) at all. The failing ones are locked in
		-- key order first (the sort under the row locks): locked in the
		-- batch's order, two finishes healing the same webhooks waited on
		-- each other in a circle, and the one PostgreSQL aborted left its
		-- successes to be sent again when their leases ran out.
		UPDATE webhooks w SET failing_since = NULL, failures_since = 0
		FROM (SELECT x.id FROM webhooks x
			WHERE x.id IN (SELECT webhook_id FROM finished)
				AND (x.failing_since IS NOT NULL OR x.failures_since <> 0)
			ORDER BY x.id
			FOR NO KEY UPDATE) AS failing
		WHERE w.id = failing.id
	), wanted AS (
		-- Each webhook's chaining successes, one row per delivery they
		-- want (generate_series), their numbers and lease terms in arrays
		-- in the order they are served: the k-th delivery picked is
		-- owners[k]'s. Arrays, not a join of the picked to their successes
		-- (see answered below).
		SELECT c.webhook_id, count(*) AS k, min(c.at) AS now,
			(array_agg(c.after_due ORDER BY c.after_due, c.after_id))[1] AS after_due,
			(array_agg(c.after_id ORDER BY c.after_due, c.after_id))[1] AS after_id,
			array_agg(c.i ORDER BY c.i) AS owners, array_agg(c.next_token ORDER BY c.i) AS tokens,
			array_agg(c.next_expiry ORDER BY c.i) AS expiries, array_agg(c.at ORDER BY c.i) AS ats
		FROM finished c CROSS JOIN generate_series(1, c.want)
		WHERE c.want > 0
		GROUP BY c.webhook_id
	), picked AS (
		SELECT w.webhook_id, w.owners, w.tokens, w.expiries, w.ats, n.id,
			row_number() OVER (PARTITION BY w.webhook_id ORDER BY n.next_attempt_at, n.id) AS k
		FROM wanted w CROSS JOIN LATERAL (
			SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
			WHERE d.webhook_id = w.webhook_id AND d.status = 'pending' AND d.next_attempt_at <= w.now AND d.id < $23
				AND (d.next_attempt_at, d.id) > (w.after_due, w.after_id)
				AND (d.lease_expires_at IS NULL OR d.lease_expires_at <= w.now)
				AND d.id <> ALL ($2::text[])
				AND (d.order_key IS NULL OR NOT EXISTS (` + earlierOfItsObjectSQL + `
					AND earlier.id NOT IN (SELECT delivery_id FROM finished)))
				AND EXISTS (SELECT 1 FROM webhooks x WHERE x.id = w.webhook_id AND x.enabled AND x.rate_limit IS NULL
					AND (x.paused_until IS NULL OR x.paused_until <= w.now))
			ORDER BY d.next_attempt_at, d.id
			LIMIT w.k
			FOR UPDATE SKIP LOCKED
		) n
	), leased AS (
		UPDATE webhook_deliveries d
		SET lease_token = p.tokens[p.k], lease_expires_at = p.expiries[p.k], attempts = d.attempts + 1,
			updated_at = p.ats[p.k], claimed_at = clock_timestamp(), woken_at = NULL
		FROM picked p
		WHERE d.id = p.id
		RETURNING p.owners[p.k] AS i, p.webhook_id, d.id, d.event_id, d.attempts, d.next_attempt_at
	), answered AS MATERIALIZED (
		SELECT (SELECT array_agg(i) FROM finished) AS held, (SELECT array_agg(i) FROM leased) AS chained
	)
	-- A row per success without a next delivery, and one per next delivery
	-- (its success's lease held). Sets of the batch's numbers, not joins on
	-- them: with hash joins off, each join of these CTEs on i was a nested
	-- loop over the other's rows, a batch of 32 comparing a thousand pairs
	-- four times (BENCHMARKS.md, "Encoded into a kept buffer").
	SELECT f.i, coalesce(f.i = ANY (a.held), false), NULL::text, NULL::text, NULL::int, NULL::timestamptz,
		NULL::text, NULL::text, NULL::boolean, NULL::text, NULL::text, NULL::text, NULL::timestamptz,
		NULL::text, NULL::text
	FROM f, answered a
	WHERE NOT coalesce(f.i = ANY (a.chained), false)
	UNION ALL
	SELECT leased.i, true, leased.id, leased.event_id, leased.attempts, leased.next_attempt_at,
		(SELECT xmin::text FROM webhooks WHERE id = leased.webhook_id),
		e.account_id, e.livemode, e.type, e.object_id, e.data::text, e.created_at, e.traceparent, e.tracestate
	FROM leased LEFT JOIN events e ON e.id = leased.event_id
	ORDER BY 1, 6, 3`

// Success is one successful attempt to record; Next, when set, asks for
// the webhook's next due deliveries (Next.Limit of them, at least one)
// under the lease token Next.Token.
type Success struct {
	Delivery *Delivery
	Token    string
	Attempt  *DeliveryAttempt
	Next     *ClaimParams
	// Again marks a finish tried again after a failure that may have
	// committed: its attempt may be recorded already.
	Again bool
}

// Finished is what became of a success: whether its lease still held, and
// the next deliveries leased for it, in due order (none when none was due).
type Finished struct {
	Held bool
	Next []*Delivery
	Err  error
}

// FinishSuccess records one success with whatever others are being
// recorded at the same time: a success is the dispatcher's common case and
// its bookkeeping most of a delivery's database work, and one statement for
// a batch (FinishSuccesses) costs PostgreSQL far less than one per success.
// The same batcher as payment creations' (pg.Coalescer): nothing waits to
// fill a batch, a lone success is recorded at once, and no goroutine runs
// while none is being recorded. Two batches at a time: once workers stopped
// waiting for their successes' records (they hold runs of deliveries), one
// batch at a time kept the batcher busy 98% of the drain on one core while
// the other idled; two drained 15–30% faster for 5–10 µs more of PostgreSQL
// per delivery (BENCHMARKS.md, "Deliveries at queue cost"; one at a time
// had been as fast and cheaper while each worker waited, "One batcher").
func (s *Store) FinishSuccess(ctx context.Context, success Success) Finished {
	f, err := s.successes.Do(ctx, success)
	if err != nil && f.Err == nil {
		f.Err = err
	}
	return f
}

// successBatches coalesces concurrent FinishSuccess calls.
type successBatches = pg.Coalescer[Success, Finished]

// successBatchesInFlight is how many batches of successes are recorded at
// a time (see FinishSuccess), each on a connection of its own (s.finishes).
const successBatchesInFlight = 2

func newSuccessBatches(s *Store) *successBatches {
	return &successBatches{MaxInFlight: successBatchesInFlight, MaxBatch: 32, Timeout: 10 * time.Second,
		Serve: func(ctx context.Context, batch []Success) []pg.Outcome[Finished] {
			finished := s.FinishSuccesses(ctx, batch)
			outs := make([]pg.Outcome[Finished], len(batch))
			for i, f := range finished {
				outs[i] = pg.Outcome[Finished]{Out: f}
			}
			return outs
		}}
}

// FinishSuccesses records a batch of successes in one statement and one
// round trip (finishSuccessesSQL), one Finished per success, in order.
func (s *Store) FinishSuccesses(ctx context.Context, batch []Success) []Finished {
	outs := make([]Finished, len(batch))
	query := finishSuccessesSQL
	if slices.ContainsFunc(batch, func(s Success) bool { return s.Again }) {
		query = finishSuccessesAgainSQL
	}
	arena := headerArenas.Take()
	args, headers := finishSuccessesArgs(batch, *arena)
	stmts := []pg.Statement{{SQL: pg.RelaxedKeyProbePlanSQL}, {SQL: query, Args: args}}
	err := s.finishes.Pipelined(ctx, stmts, func(stmt int, rows pgx.Rows) error {
		if stmt < len(stmts)-1 {
			return nil
		}
		// Values, not pointers: pgx makes a new value (by reflection) for
		// every pointer it scans a column into, a dozen a row.
		var (
			ordinal                         int64
			held                            bool
			nextID, eventID, webhookVersion pgtype.Text
			attempts                        pgtype.Int4
			nextDue                         pgtype.Timestamptz
			ev                              struct {
				accountID, eventType, objectID, traceparent, tracestate pgtype.Text
				data                                                    []byte // scanned fresh for each row
				livemode                                                pgtype.Bool
				createdAt                                               pgtype.Timestamptz
			}
		)
		dest := []any{&ordinal, &held, &nextID, &eventID, &attempts, &nextDue, &webhookVersion,
			&ev.accountID, &ev.livemode, &ev.eventType, &ev.objectID, &ev.data, &ev.createdAt, &ev.traceparent, &ev.tracestate}
		answered := make([]bool, len(batch))
		for rows.Next() {
			if err := rows.Scan(dest...); err != nil {
				return err
			}
			if ordinal < 1 || ordinal > int64(len(batch)) {
				return fmt.Errorf("answer for success %d outside the batch of %d", ordinal, len(batch))
			}
			i := int(ordinal - 1)
			answered[i] = true
			out := &outs[i]
			out.Held = held
			if !held || !nextID.Valid || ev.data == nil {
				continue
			}
			d, ask := batch[i].Delivery, batch[i].Next
			expiry := ask.Now.Add(ask.Lease)
			next := &Delivery{ID: nextID.String, WebhookID: d.WebhookID, AccountID: d.AccountID, EventID: eventID.String,
				Attempts: int(attempts.Int32), LeaseToken: &ask.Token, LeaseExpiresAt: &expiry, NextAttemptAt: nextDue.Time,
				Webhook: d.Webhook, Event: &Event{
					ID: eventID.String, AccountID: ev.accountID.String, Livemode: ev.livemode.Bool, Type: ev.eventType.String,
					ObjectID: ev.objectID.String, Data: ev.data, CreatedAt: ev.createdAt.Time, TraceParent: textOrNil(ev.traceparent),
					TraceState: textOrNil(ev.tracestate),
				}}
			if !webhookVersion.Valid || webhookVersion.String != d.Webhook.RowVersion {
				// The webhook changed since it was read (a new URL, a rotated
				// secret): read again below, outside the batch, unless
				// another read has it at this version.
				next.Webhook = nil
				if webhookVersion.Valid {
					next.Webhook = s.webhookCopies.get(d.WebhookID, webhookVersion.String)
				}
			}
			out.Next = append(out.Next, next)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if i := slices.Index(answered, false); i >= 0 {
			return fmt.Errorf("no answer for success %d of %d", i+1, len(batch))
		}
		return nil
	})
	headerArenas.Keep(arena, headers) // encoded and sent: the headers' JSON is read no more
	if err != nil {
		for i := range outs {
			outs[i].Err = fmt.Errorf("store: finish delivery: %w", err)
		}
		return outs
	}
	// Next deliveries whose webhook changed get it read again, all in one
	// query. One whose webhook is gone (or unreadable) stays leased and is
	// attempted when its lease ends.
	var stale []string
	for _, o := range outs {
		for _, next := range o.Next {
			if next.Webhook == nil && !slices.Contains(stale, next.WebhookID) {
				stale = append(stale, next.WebhookID)
			}
		}
	}
	if len(stale) == 0 {
		return outs
	}
	hooks, err := s.webhooksByID(ctx, stale)
	for i := range outs {
		nexts := outs[i].Next
		if len(nexts) == 0 || nexts[0].Webhook != nil {
			continue // a success's run is of one webhook, read once
		}
		var wh *Webhook
		if err == nil {
			wh = webhookIn(hooks, nexts[0].WebhookID)
		}
		if wh == nil {
			outs[i].Next = nil
			outs[i].Err = fmt.Errorf("store: leased delivery's webhook: %w", cmp.Or(err, sql.ErrNoRows))
			continue
		}
		for _, next := range nexts {
			next.Webhook = wh
		}
	}
	return outs
}

// textOrNil is t's string, or nil for NULL.
func textOrNil(t pgtype.Text) *string {
	if !t.Valid {
		return nil
	}
	return &t.String
}

// finishSuccessesArgs are finishSuccessesSQL's parameters: one array per
// column, one element per success; the attempts' header maps are rendered
// at the end of arena, returned grown (headers).
func finishSuccessesArgs(batch []Success, arena []byte) (args []any, headers []byte) {
	n := len(batch)
	texts := func() []string { return make([]string, n) }
	nullables := func() []*string { return make([]*string, n) }
	times := func() []time.Time { return make([]time.Time, n) }
	attemptIDs, deliveryIDs, webhookIDs, eventIDs, eventTypes := texts(), texts(), texts(), texts(), texts()
	requestURLs, requestBodies, tokens, nextTokens := texts(), texts(), texts(), texts()
	errorClasses, errorMessages := nullables(), nullables()
	requestHeaders, responseHeaders := make([][]byte, n), make([][]byte, n)
	attemptNos, durations, statuses := make([]int32, n), make([]int32, n), make([]*int32, n)
	bodies, wants := make([][]byte, n), make([]int32, n)
	ats, nextExpiries, afterDues, afterIDs := times(), times(), times(), texts()
	for i, b := range batch {
		a := b.Attempt
		attemptIDs[i], deliveryIDs[i], webhookIDs[i] = a.ID, b.Delivery.ID, a.WebhookID
		eventIDs[i], eventTypes[i] = a.EventID, a.EventType
		requestURLs[i], requestBodies[i], tokens[i] = a.RequestURL, a.RequestBody, b.Token
		requestHeaders[i], arena = appendHeadersJSON(arena, a.RequestHeaders, jsonw.AppendStringMap)
		responseHeaders[i], arena = appendHeadersJSON(arena, a.ResponseHeaders, jsonw.AppendStringsMap)
		errorClasses[i], errorMessages[i] = a.ErrorClass, a.ErrorMessage
		attemptNos[i], durations[i] = int32(a.Attempt), int32(a.DurationMS)
		if a.ResponseStatus != nil {
			status := int32(*a.ResponseStatus)
			statuses[i] = &status
		}
		bodies[i], ats[i] = a.ResponseBody, a.CreatedAt
		afterDues[i], afterIDs[i] = b.Delivery.NextAttemptAt, b.Delivery.ID
		if b.Next != nil {
			wants[i], nextTokens[i], nextExpiries[i] = int32(max(b.Next.Limit, 1)), b.Next.Token, b.Next.Now.Add(b.Next.Lease)
			if b.Next.AfterID != "" {
				afterDues[i], afterIDs[i] = b.Next.AfterDue, b.Next.AfterID
			}
		}
	}
	return []any{attemptIDs, deliveryIDs, webhookIDs, eventIDs, eventTypes, attemptNos, requestURLs,
		requestHeaders, requestBodies, statuses, responseHeaders, bodies, durations, errorClasses, errorMessages,
		ats, tokens, nextTokens, nextExpiries, wants, afterDues, afterIDs, queuedBefore()}, arena
}

// ReleaseLeases gives back every delivery leased under token (a claim's
// token also covers its deliveries' "token.n"): the leases of a claim or a
// chain whose answer was lost (the connection broke after the database
// committed it), which no worker is attempting. Each is due again at once,
// its attempt count as before the lease.
func (s *Store) ReleaseLeases(ctx context.Context, token string) (int, error) {
	return s.releaseLeases(ctx, "webhook_deliveries", token)
}

// ReleaseDeliveries gives back deliveries a worker holds and will not
// attempt (it stopped, or its webhook failed or turned slow while they
// waited), each while its lease is still tokens[i]: due again at once, their
// attempt count as before the lease.
func (s *Store) ReleaseDeliveries(ctx context.Context, ids, tokens []string) (int, error) {
	var n int
	stmts := []pg.Statement{{SQL: pg.KeyProbePlanSQL}, {SQL: releaseDeliveriesSQL, Args: []any{ids, tokens}}}
	err := pg.Pipelined(ctx, s.db.DB, stmts, func(stmt int, rows pgx.Rows) error {
		for stmt == 1 && rows.Next() {
			if err := rows.Scan(&n); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store: release deliveries: %w", err)
	}
	return n, nil
}

// releaseDeliveriesSQL gives back deliveries by key, each while its lease
// is still its token, and counts them. A worker gives back what is left of
// its run each time one ends (a second, or 256 deliveries), so it is a
// prepared statement under KeyProbePlan: sent as text, it was planned at
// every call, and "lease_token = token" (which implies the partial index
// of leased deliveries) let the planner read that index whole, every
// webhook's leases, to give back a few: 2.6 ms and 438 buffers a call in
// the drain to four webhooks (pg_stat_statements; BENCHMARKS.md, "A
// batch's buffer, kept"). The finish of a batch avoids it the same way.
// Nor does it say "status = 'pending'", which implies the partial index of
// pending deliveries: with statistics taken while few were pending, the
// plan read that index whole into memory and compared every delivery given
// back with each of its rows, 3,000 buffers and 140-300 ms a call in a
// backlog (BENCHMARKS.md, "A give-back that read the whole queue"). Only a
// pending delivery holds a lease: every statement that ends one (a
// success, a failure, a give-up) clears its lease in the same update, so
// its token is enough.
const releaseDeliveriesSQL = `WITH released AS (
		UPDATE webhook_deliveries d
		SET lease_token = NULL, lease_expires_at = NULL, attempts = greatest(d.attempts - 1, 0)
		FROM unnest($1::text[], $2::text[]) AS r(id, token)
		WHERE d.id = r.id AND d.lease_token IS NOT DISTINCT FROM r.token
		RETURNING 1
	)
	SELECT count(*)::int FROM released`

// releaseLeases gives back the pending rows of an outbound queue (a table
// with lease_token, lease_expires_at and attempts: webhook_deliveries,
// psp_calls) leased under token or under its numbered parts ("token.n"),
// their attempt uncounted.
func (s *Store) releaseLeases(ctx context.Context, table, token string) (int, error) {
	res, err := s.db.ExecContext(ctx, `UPDATE ?
		SET lease_token = NULL, lease_expires_at = NULL, attempts = greatest(attempts - 1, 0)
		WHERE (lease_token = ? OR starts_with(lease_token, ? || '.')) AND status = 'pending'`, bun.Ident(table), token, token)
	if err != nil {
		return 0, fmt.Errorf("store: release %s leases: %w", table, err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
