package main

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/valyala/fasthttp"

	"payments/store"
	"payments/store/jsonw"
)

// receiver is a local webhook endpoint that timestamps each event's arrival.
type receiver struct {
	url      string
	received atomic.Int64
	mu       sync.Mutex
	seen     map[string]bool
	latency  *recorder // arrival minus the event's created_at
	last     atomic.Int64
	// arrivals are the events received since reset, for the timeline of
	// the slowest.
	arrivals []arrival
}

// arrival is one event received: its id, when, and after how long.
type arrival struct {
	id      string
	at      time.Time
	latency time.Duration
}

// startReceiver serves the endpoint with fasthttp, whose lower cost per
// request (about half of net/http's here) leaves more of the machine's two
// cores to the service being measured; the raw POST ceiling uses it too.
func startReceiver() (*receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &receiver{url: "http://" + ln.Addr().String() + "/hooks", seen: map[string]bool{}, latency: &recorder{}}
	srv := &fasthttp.Server{Handler: r.serve, ReadTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return r, nil
}

func (r *receiver) serve(ctx *fasthttp.RequestCtx) {
	body := ctx.PostBody()
	now := time.Now()
	// v2 envelopes start {"id":"evt_…", … "created_at":"…": read the two
	// fields without decoding the whole body, to keep the receiver cheap.
	id, createdAt := jsonStringField(body, `"id":"`), jsonStringField(body, `"created_at":"`)
	if id != "" {
		r.mu.Lock()
		dup := r.seen[id]
		r.seen[id] = true
		r.mu.Unlock()
		if !dup {
			if at, err := time.Parse(jsonw.TimeFormat, createdAt); err == nil {
				r.latency.add(now.Sub(at), nil)
				r.mu.Lock()
				r.arrivals = append(r.arrivals, arrival{id: id, at: now, latency: now.Sub(at)})
				r.mu.Unlock()
			}
			r.received.Add(1)
			r.last.Store(now.UnixNano())
		}
	}
	ctx.SetStatusCode(fasthttp.StatusOK)
}

// jsonStringField returns the string after the first occurrence of key
// (which ends with its opening quote), up to the closing quote.
func jsonStringField(body []byte, key string) string {
	i := bytes.Index(body, []byte(key))
	if i < 0 {
		return ""
	}
	rest := body[i+len(key):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return ""
	}
	return string(rest[:j])
}

// drained is the result of n events sent from start: their latencies, over
// the time until the last one arrived.
func (r *receiver) drained(n int, start time.Time) result {
	res := r.latency.result(time.Since(start))
	res.ops = n
	res.elapsed = time.Duration(r.last.Load() - start.UnixNano())
	return res
}

// reset forgets the arrivals counted and the latencies measured so far.
func (r *receiver) reset() {
	r.latency = &recorder{}
	r.received.Store(0)
	r.mu.Lock()
	r.arrivals = nil
	r.mu.Unlock()
}

// sorted are the arrivals since reset, slowest first.
func (r *receiver) sorted() []arrival {
	r.mu.Lock()
	all := append([]arrival(nil), r.arrivals...)
	r.mu.Unlock()
	slices.SortFunc(all, func(a, b arrival) int { return cmp.Compare(b.latency, a.latency) })
	return all
}

// timeline describes where the deliveries spent their time, each step in
// ms after the event's created_at (taken in its transaction, before the
// statements that save it): the transaction's commit (PostgreSQL's commit
// timestamp, when track_commit_timestamp is on, as on `make bench`'s
// server), the dispatcher woken (by the NOTIFY, its poll or a freed worker;
// "chained" when a worker took it straight after a success on the same
// webhook), the claim's statement running in PostgreSQL, the request sent,
// the body received (the receiver's clock), the answer read. First each
// step's median and 90th percentile over every arrival (what every event
// pays: the tail is these plus whatever delayed the slowest), then the
// slowest few. "at" is when the event was made, in seconds since the phase
// began; below the table, what PostgreSQL did in the background during the
// phase.
func timeline(ctx context.Context, pool *pgxpool.Pool, all []arrival, slowest int, phase phaseWindow, dumpTo string) (string, error) {
	if len(all) == 0 {
		return "", nil
	}
	ids := make([]string, len(all))
	for i, a := range all {
		ids[i] = a.id
	}
	rows, err := pool.Query(ctx, `SELECT e.id, e.created_at,
			CASE WHEN current_setting('track_commit_timestamp')::bool THEN pg_xact_commit_timestamp(e.xmin) END,
			d.woken_at, d.claimed_at, a.created_at, a.duration_ms
		FROM events e JOIN webhook_deliveries d ON d.event_id = e.id JOIN delivery_attempts a ON a.delivery_id = d.id
		WHERE e.id = ANY($1)`, ids)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	steps := map[string]*timelineSteps{}
	for rows.Next() {
		var id string
		var s timelineSteps
		var sent time.Time
		var took int
		if err := rows.Scan(&id, &s.created, &s.committed, &s.woken, &s.claimed, &sent, &took); err != nil {
			return "", err
		}
		answered := sent.Add(time.Duration(took) * time.Millisecond)
		s.sent, s.answered = &sent, &answered
		steps[id] = &s
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("\nWhere the deliveries at 200 events/s spent their time, ms after the event's created_at:\n\n")
	b.WriteString("| event | at | committed | woken | claimed | sent | received | answered |\n|---|---|---|---|---|---|---|---|\n")
	var each [6][]float64 // committed, woken, claimed, sent, received, answered
	for _, a := range all {
		s, ok := steps[a.id]
		if !ok {
			continue
		}
		s.received = &a.at
		for i, t := range s.times() {
			if t != nil {
				each[i] = append(each[i], s.after(t))
			}
		}
	}
	if dumpTo != "" {
		if err := dumpSteps(dumpTo, all, steps, phase.start); err != nil {
			return "", err
		}
	}
	for _, q := range []float64{0.5, 0.9} {
		fmt.Fprintf(&b, "| p%.0f of %d | |", 100*q, len(each[5]))
		for i := range each {
			fmt.Fprintf(&b, " %s |", quantileMS(each[i], q))
		}
		b.WriteString("\n")
	}
	for _, a := range all[:min(slowest, len(all))] {
		s, ok := steps[a.id]
		if !ok {
			continue
		}
		fmt.Fprintf(&b, "| %s | %.2f s |", a.id, s.created.Sub(phase.start).Seconds())
		for i, t := range s.times() {
			switch {
			case t != nil:
				fmt.Fprintf(&b, " %.1f |", s.after(t))
			case i == 1:
				b.WriteString(" chained |")
			default:
				b.WriteString(" n/a |")
			}
		}
		b.WriteString("\n")
	}
	b.WriteString(phase.background)
	return b.String(), nil
}

// dumpSteps writes every delivery of all to path, a line each in all's
// order (the timeline's: the slowest first): its event's created_at in
// seconds after start, then each step (timelineSteps.times) in ms after
// it, "-" where not known. The report's quantiles hide when in a phase the
// slow deliveries came; this is for reading them against time
// (BENCHMARKS.md, "The claim's walk grows until vacuum"). It runs once
// timeline has given each delivery its arrival.
func dumpSteps(path string, all []arrival, steps map[string]*timelineSteps, start time.Time) error {
	var b strings.Builder
	for _, a := range all {
		s, ok := steps[a.id]
		if !ok {
			continue
		}
		fmt.Fprintf(&b, "%.4f", s.created.Sub(start).Seconds())
		for _, t := range s.times() {
			if t == nil {
				b.WriteString(" -")
				continue
			}
			fmt.Fprintf(&b, " %.2f", s.after(t))
		}
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("timeline: %w", err)
	}
	return nil
}

// timelineSteps are when one delivery's event was made and reached each
// step after it (nil: not known, or not taken).
type timelineSteps struct {
	created                                             time.Time
	committed, woken, claimed, sent, received, answered *time.Time
}

func (s *timelineSteps) times() [6]*time.Time {
	return [6]*time.Time{s.committed, s.woken, s.claimed, s.sent, s.received, s.answered}
}

// after is t in ms after the event was made.
func (s *timelineSteps) after(t *time.Time) float64 {
	return float64(t.Sub(s.created).Microseconds()) / 1000
}

// quantileMS is the q-quantile of ms, formatted, or "n/a" when there are none.
func quantileMS(ms []float64, q float64) string {
	if len(ms) == 0 {
		return "n/a"
	}
	slices.Sort(ms)
	return fmt.Sprintf("%.1f", ms[min(int(q*float64(len(ms))), len(ms)-1)])
}

// phaseWindow is when a phase began and what PostgreSQL did meanwhile
// besides serving it.
type phaseWindow struct {
	start      time.Time
	background string
}

// pgCounters are PostgreSQL's cumulative counters that tell what it did
// during a phase besides serving it.
type pgCounters struct {
	checkpoints int64
	blocksRead  int64   // read from outside shared buffers, into this database
	readMS      float64 // the time those reads took (track_io_timing)
}

func pgActivity(ctx context.Context, pool *pgxpool.Pool) (c pgCounters) {
	_ = pool.QueryRow(ctx, `SELECT (SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter), blks_read, blk_read_time
		FROM pg_stat_database WHERE datname = current_database()`).Scan(&c.checkpoints, &c.blocksRead, &c.readMS)
	return c
}

// backgroundDuring describes the checkpoints, block reads and autovacuum
// runs between start (when the counters were before) and now.
func backgroundDuring(ctx context.Context, pool *pgxpool.Pool, start time.Time, before pgCounters) string {
	// Counters reach pg_stat_database when a backend's transaction ends,
	// at most once a second: give the service's a moment.
	time.Sleep(1100 * time.Millisecond)
	after := pgActivity(ctx, pool)
	parts := []string{fmt.Sprintf("%d blocks read from outside shared buffers in %.1f ms",
		after.blocksRead-before.blocksRead, after.readMS-before.readMS)}
	if n := after.checkpoints - before.checkpoints; n > 0 {
		parts = append(parts, fmt.Sprintf("%d checkpoint(s)", n))
	}
	rows, err := pool.Query(ctx, `SELECT relname, last_autovacuum, last_autoanalyze FROM pg_stat_user_tables
		WHERE last_autovacuum >= $1 OR last_autoanalyze >= $1 ORDER BY relname`, start)
	if err == nil {
		for rows.Next() {
			var name string
			var vacuum, analyze *time.Time
			if rows.Scan(&name, &vacuum, &analyze) != nil {
				break
			}
			if vacuum != nil && !vacuum.Before(start) {
				parts = append(parts, fmt.Sprintf("autovacuum of %s at %.2f s", name, vacuum.Sub(start).Seconds()))
			}
			if analyze != nil && !analyze.Before(start) {
				parts = append(parts, fmt.Sprintf("autoanalyze of %s at %.2f s", name, analyze.Sub(start).Seconds()))
			}
		}
		rows.Close()
	}
	return "\nPostgreSQL during the phase: " + strings.Join(parts, "; ") + ".\n"
}

func (r *receiver) waitFor(n int64, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for r.received.Load() < n {
		if time.Now().After(deadline) {
			return fmt.Errorf("received %d of %d events in %s", r.received.Load(), n, timeout)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}

// benchRawPOST is the delivery ceiling: a plain Go client POSTing a
// same-sized body to the same receiver, c requests in flight.
func benchRawPOST(url string, body []byte, c int, d time.Duration) result {
	client := &http.Client{Timeout: 15 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: c}}
	return closedLoop(c, d, func(int, int) error {
		res, err := client.Post(url, "application/json", bytes.NewReader(body))
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, res.Body)
		return res.Body.Close()
	})
}

// warmUp pays these payments at rate (a second's worth), unmeasured, and
// waits for their deliveries. The first events after the phases before pay
// one-time costs (each pooled connection prepares the pay, event and claim
// statements on first use; the dispatcher opens its connections to the
// receiver), which made them the slowest of the steady phase in run after
// run (see BENCHMARKS.md); that phase measures the steady state.
func warmUp(api *apiClient, recv *receiver, ids []string, rate int) error {
	recv.reset()
	if err := payAtRate(api, ids, rate); err != nil {
		return err
	}
	if err := recv.waitFor(int64(len(ids)), 60*time.Second); err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	return nil
}

// benchSteady pays pending payments through the API at rate per second for
// d and measures end to end: the event's created_at (its transaction) to the
// receiver reading it.
func benchSteady(api *apiClient, recv *receiver, pending []string, rate int, d time.Duration) (result, error) {
	return benchSteadyWithin(api, recv, pending, rate, d, time.Minute)
}

// benchSteadyWithin is benchSteady waiting up to timeout for the last delivery.
func benchSteadyWithin(api *apiClient, recv *receiver, pending []string, rate int, d, timeout time.Duration) (result, error) {
	n := rate * int(d/time.Second)
	if len(pending) < n {
		return result{}, fmt.Errorf("need %d pending payments, have %d", n, len(pending))
	}
	recv.reset()
	start := time.Now()
	if err := payAtRate(api, pending[:n], rate); err != nil {
		return result{}, err
	}
	if err := recv.waitFor(int64(n), timeout); err != nil {
		return result{}, err
	}
	return recv.drained(n, start), nil
}

// payAtRate pays the payments through the test helper, rate per second,
// and returns when every call was answered.
func payAtRate(api *apiClient, ids []string, rate int) error {
	start := time.Now()
	interval := time.Second / time.Duration(rate)
	var wg sync.WaitGroup
	var failed atomic.Int64
	for i, id := range ids {
		time.Sleep(time.Until(start.Add(time.Duration(i) * interval)))
		wg.Go(func() {
			if _, err := api.do("POST", "/api/v1/test_helpers/payments/"+id+"/pay", nil, http.StatusOK); err != nil {
				failed.Add(1)
			}
		})
	}
	wg.Wait()
	if f := failed.Load(); f > 0 {
		return fmt.Errorf("%d pay calls failed", f)
	}
	return nil
}

// queueBacklog records n events of the payment, their types cycling through
// types (one webhook subscribes to each), through the outbox in one
// statement and transaction, and returns when they became visible.
func queueBacklog(ctx context.Context, st *store.Store, recv *receiver, accountID string, types []string,
	paymentID string, snapshot []byte, n int,
) (time.Time, error) {
	recv.reset()
	if err := recordBacklog(ctx, st, accountID, types, paymentID, snapshot, n); err != nil {
		return time.Time{}, err
	}
	return time.Now(), nil // the backlog and its NOTIFY become visible at this commit
}

// recordBacklog records n events of the account's object in one statement
// and transaction, their types cycling through types.
func recordBacklog(ctx context.Context, st *store.Store, accountID string, types []string, objectID string, snapshot []byte, n int) error {
	events := make([]store.NewEvent, n)
	now := time.Now()
	for i := range events {
		events[i] = store.NewEvent{Scope: store.Scope{AccountID: accountID}, Type: types[i%len(types)],
			ObjectID: objectID, Data: snapshot, At: now}
	}
	if err := st.RecordEvents(ctx, events); err != nil {
		return fmt.Errorf("queue backlog: %w", err)
	}
	return nil
}

// drainBacklog times the dispatcher draining the n deliveries queued at start.
func drainBacklog(recv *receiver, start time.Time, n int) (result, error) {
	if err := recv.waitFor(int64(n), 5*time.Minute); err != nil {
		return result{}, err
	}
	return recv.drained(n, start), nil
}
