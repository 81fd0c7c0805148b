package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/internal/testbin"
)

// The fault suite: real processes on loopback, two API processes and two
// dispatchers on a PostgreSQL of the suite's own, under a steady load of
// payments, while PostgreSQL is restarted, a dispatcher is SIGKILLed and
// restarted, and the receiver is down for 30 s. It asserts that no event is
// lost, that no webhook ever has more attempts in flight than its cap
// (counted by the receiver), that the only duplicates are of attempts the
// kill interrupted, that delivery resumes within 5 s of PostgreSQL
// accepting connections again, and that the API answered the outage with
// 503 and Retry-After only.
func TestFaultSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("the fault suite takes about a minute and a half")
	}
	t.Parallel()
	bin, pg, env, account := startRig(t, "Falhas", "DISPATCHER_LEASE=20s")

	recv := newCountingReceiver(t)
	apis := []*process{startProcess(t, bin, env, "--web"), startProcess(t, bin, env, "--web")}
	dispatchers := []*process{startProcess(t, bin, env, "--dispatcher"), startProcess(t, bin, env, "--dispatcher")}
	for _, api := range apis {
		api.waitHealthy(t)
	}
	const perWebhookCap = 8
	var hooks []string
	for _, name := range []string{"A", "B"} {
		var wh struct{ ID string }
		status := apis[0].post(t, account.Key, "/api/v1/webhooks", map[string]any{"url": recv.url, "name": name, "events": []string{"payment.created"}}, "", &wh)
		require.Equal(t, http.StatusCreated, status)
		hooks = append(hooks, wh.ID)
	}

	// The load: payments created through both API processes, each retried
	// with its Idempotency-Key until it is created; every 5xx is counted.
	load := &loadStats{statuses: map[int]int{}}
	stop := make(chan struct{})
	var loaders sync.WaitGroup
	for i := range 4 {
		loaders.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				key := fmt.Sprintf("load-%d-%d", i, n)
				for try := 0; ; try++ {
					status, retryAfter := apis[(n+try)%2].create(t, account.Key, key)
					load.add(status, retryAfter)
					if status == http.StatusCreated || try > 100 {
						break
					}
					time.Sleep(200 * time.Millisecond)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}

	// A burst first, so the cap is reached, then the faults.
	time.Sleep(5 * time.Second)
	pg.restart(t)
	back := time.Now()
	resumed := recv.firstAfter(back, 10*time.Second)
	require.False(t, resumed.IsZero(), "no delivery within 10 s of PostgreSQL coming back")
	resumeAfter := resumed.Sub(back)

	time.Sleep(5 * time.Second)
	killedAt := time.Now()
	dispatchers[0].Kill(t)
	time.Sleep(2 * time.Second)
	dispatchers[0] = startProcess(t, bin, env, "--dispatcher")

	time.Sleep(3 * time.Second)
	recv.setDown(true)
	time.Sleep(30 * time.Second)
	recv.setDown(false)
	time.Sleep(3 * time.Second)
	close(stop)
	loaders.Wait()

	// Every payment.created event in the database reaches the receiver
	// (retries after the receiver's outage come within 5 s + 30 s, +20 %).
	var events []string
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		events = pg.eventIDs(t)
		if recv.missing(events, len(hooks)) == 0 {
			break
		}
		if time.Now().After(deadline) {
			lost := recv.missingIDs(events, len(hooks))
			t.Fatalf("events lost: %d; the deliveries of the first of them:\n%s\nthe webhooks and PostgreSQL's sessions:\n%s\n"+
				"the dispatchers' warnings and errors:\n%s\nPostgreSQL's lock waits and slow statements:\n%s\n"+
				"the dispatchers' goroutines and PostgreSQL's log: %s",
				len(lost), pg.deliveriesOf(t, lost[:min(len(lost), 20)]), pg.sessions(t), complaints(dispatchers...),
				pg.complaints(), goroutines(t, pg, dispatchers...))
		}
	}
	// An attempt the kill interrupted was answered by the receiver but
	// never recorded: its first answer comes just before the kill (the
	// dispatcher had not recorded it yet) or just after (the request was
	// on its way, or the receiver was still at work, when the sender died).
	duplicates := recv.duplicates()
	var offsets []string
	for id, first := range duplicates {
		offsets = append(offsets, first.Sub(killedAt).Round(time.Millisecond).String())
		if !first.After(killedAt.Add(-killWindow)) || !first.Before(killedAt.Add(killWindow)) {
			t.Fatalf("event %s arrived twice, first %s from the kill (at %s); its deliveries and attempts:\n%s%s",
				id, first.Sub(killedAt), first.Format(time.RFC3339Nano), pg.deliveriesOf(t, []string{id}), pg.attemptsOf(t, id))
		}
	}
	require.LessOrEqual(t, recv.maxInFlight(), perWebhookCap, "in flight on one webhook")
	for status := range load.statuses {
		require.True(t, status == http.StatusCreated || status == http.StatusServiceUnavailable, "the API answered %d during the faults", status)
	}
	require.Equal(t, load.statuses[http.StatusServiceUnavailable], load.retryAfter, "every 503 has Retry-After")
	require.LessOrEqual(t, resumeAfter, 5*time.Second, "delivery resumed after PostgreSQL came back")
	t.Logf("fault suite: %d events, lost 0, duplicates %d (first answered %v from the kill), max in flight per webhook %d (cap %d), "+
		"delivery resumed %s after PostgreSQL accepted connections, API answers %v (every 503 with Retry-After)",
		len(events), len(duplicates), offsets, recv.maxInFlight(), perWebhookCap, resumeAfter.Round(time.Millisecond), load.statuses)
	for _, p := range append(apis, dispatchers...) {
		require.NotContains(t, p.Logs.String(), `"level":"ERROR","msg":"request failed"`, "no request failed with a 500")
	}
}

// startRig migrates a PostgreSQL of the test's own and makes an account
// named name on it: the binary, the database, the processes' environment
// (with extra) and the account's test key.
func startRig(t *testing.T, name string, extra ...string) (string, *privatePostgres, []string, rigAccount) {
	t.Helper()
	bin := testbin.Path(t, "PAYMENTS_BIN", "./cmd/payments")
	pg := startPrivatePostgres(t)
	secret := make([]byte, 32)
	_, _ = rand.Read(secret)
	env := append([]string{"DATABASE_URL=" + pg.url, "SECRET_KEY=" + hex.EncodeToString(secret), "WEBHOOK_ALLOW_PRIVATE_NETWORKS=true",
		"LOG_LEVEL=warn", "RATE_LIMIT_TEST=100000", "EXPIRY_SWEEP_INTERVAL=1h"}, extra...)
	out, err := command(bin, env, "migrate")
	require.NoError(t, err, out)
	out, err = command(bin, env, "accounts", "create", "--name", name, "--email", strings.ToLower(name)+"@example.com")
	require.NoError(t, err, out)
	var account rigAccount
	require.NoError(t, json.Unmarshal([]byte(out), &account), out)
	return bin, pg, env, account
}

// rigAccount is what `accounts create` printed that the tests use.
type rigAccount struct{ Key string }

// killWindow is how far from the kill an interrupted attempt's answer may
// be: on a loaded machine the receiver's answer and the dispatcher's record
// of it can be a second or more apart.
const killWindow = 3 * time.Second

// privatePostgres is a PostgreSQL of the suite's own, so restarting it
// disturbs no other test.
type privatePostgres struct {
	bin, dir, url string
	port          int
}

func startPrivatePostgres(t *testing.T) *privatePostgres {
	t.Helper()
	bin := os.Getenv("PG_BIN")
	if bin == "" {
		bin = "/usr/lib/postgresql/15/bin"
	}
	dir, err := os.MkdirTemp("", "payments-faults-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if os.Getuid() == 0 {
		require.NoError(t, exec.Command("chown", "postgres:postgres", dir).Run())
		require.NoError(t, os.Chmod(dir, 0o755))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	p := &privatePostgres{bin: bin, dir: dir, port: port,
		url: fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)}
	out, err := p.asPostgres(filepath.Join(bin, "initdb"), "-D", filepath.Join(dir, "data"), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8")
	require.NoError(t, err, out)
	p.pgctl(t, "start")
	t.Cleanup(func() {
		_, _ = p.asPostgres(filepath.Join(bin, "pg_ctl"), "-D", filepath.Join(dir, "data"), "-m", "immediate", "stop")
	})
	return p
}

func (p *privatePostgres) asPostgres(name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	if os.Getuid() == 0 {
		cmd = exec.Command("runuser", append([]string{"-u", "postgres", "--", name}, args...)...)
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (p *privatePostgres) pgctl(t *testing.T, action string) {
	t.Helper()
	out, err := p.asPostgres(filepath.Join(p.bin, "pg_ctl"), "-D", filepath.Join(p.dir, "data"), "-l", filepath.Join(p.dir, "log"),
		"-w", "-t", "60", "-m", "fast", action, "-o",
		fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200 "+
			"-c log_lock_waits=on -c log_min_duration_statement=1000", p.port, p.dir))
	require.NoError(t, err, out)
}

// restart stops PostgreSQL (fast: sessions are cut) and starts it again;
// it returns once PostgreSQL accepts connections.
func (p *privatePostgres) restart(t *testing.T) { p.pgctl(t, "restart") }

// psql runs psql against the suite's PostgreSQL with args, and returns
// what it printed.
func (p *privatePostgres) psql(args ...string) (string, error) {
	return p.asPostgres(filepath.Join(p.bin, "psql"), append([]string{"-h", "127.0.0.1", "-p", fmt.Sprint(p.port), "-U", "postgres"}, args...)...)
}

func (p *privatePostgres) eventIDs(t *testing.T) []string {
	t.Helper()
	out, err := p.psql("-tAc",
		"SELECT id FROM events WHERE type = 'payment.created'")
	require.NoError(t, err, out)
	return strings.Fields(out)
}

// deliveriesOf is what the database holds of these events' deliveries, as
// psql prints it: why a lost one was not delivered.
func (p *privatePostgres) deliveriesOf(t *testing.T, events []string) string {
	t.Helper()
	if len(events) == 0 {
		return ""
	}
	out, err := p.psql("-c",
		`SELECT event_id, webhook_id, status, attempts, next_attempt_at, lease_token, lease_expires_at, last_status_code,
			last_error, now() FROM webhook_deliveries WHERE event_id IN ('`+strings.Join(events, "', '")+`') ORDER BY event_id`)
	if err != nil {
		return err.Error() + "\n" + out
	}
	return out
}

// attemptsOf lists an event's attempts, oldest first: which of a doubled
// delivery's sends were recorded, when, and how they ended.
func (p *privatePostgres) attemptsOf(t *testing.T, event string) string {
	t.Helper()
	out, err := p.psql("-c", `SELECT delivery_id, webhook_id, attempt, created_at, response_status, error_class,
			duration_ms FROM delivery_attempts WHERE event_id = '`+event+`' ORDER BY created_at`)
	if err != nil {
		return err.Error() + "\n" + out
	}
	return out
}

// sessions is what the webhooks' health and leases, and PostgreSQL's
// sessions, were when deliveries were found lost: who holds what, and who
// waits on whom.
func (p *privatePostgres) sessions(t *testing.T) string {
	t.Helper()
	out, err := p.psql("-c",
		`SELECT w.id, w.enabled, w.paused_until, w.slow_since, w.failing_since, w.failures_since,
			(SELECT count(*) FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.status = 'pending') AS pending,
			(SELECT count(*) FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.lease_expires_at > now()) AS leased
		FROM webhooks w`, "-c",
		`SELECT pid, state, wait_event_type, wait_event, pg_blocking_pids(pid) AS blocked_by, now() - xact_start AS xact_age,
			now() - query_start AS query_age, left(regexp_replace(query, '\s+', ' ', 'g'), 120) AS query
		FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() ORDER BY xact_start NULLS LAST`)
	if err != nil {
		return err.Error() + "\n" + out
	}
	return out
}

// complaints are the last 40 lines of PostgreSQL's log that tell of a lock
// waited on or a statement that took a second or more.
func (p *privatePostgres) complaints() string {
	log, err := os.ReadFile(filepath.Join(p.dir, "log"))
	if err != nil {
		return err.Error()
	}
	var lines []string
	for line := range strings.SplitSeq(string(log), "\n") {
		if strings.Contains(line, "waiting for") || strings.Contains(line, "duration:") || strings.Contains(line, "deadlock") {
			lines = append(lines, line)
		}
	}
	return strings.Join(lines[max(len(lines)-40, 0):], "\n")
}

// goroutines has each process dump its goroutines and exit (SIGQUIT), and
// keeps the dumps, with PostgreSQL's log, in a directory of their own left
// for the reader: where a dispatcher's workers were when deliveries were
// found lost, and what PostgreSQL was doing.
func goroutines(t *testing.T, pg *privatePostgres, processes ...*process) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "fault-goroutines-")
	if err != nil {
		return err.Error()
	}
	if log, err := os.ReadFile(filepath.Join(pg.dir, "log")); err == nil {
		_ = os.WriteFile(filepath.Join(dir, "postgresql.log"), log, 0o644)
	}
	for i, p := range processes {
		_ = p.Cmd.Process.Signal(syscall.SIGQUIT)
		_ = p.Cmd.Wait()
		_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("dispatcher-%d.log", i)), []byte(p.Logs.String()), 0o644)
	}
	return dir
}

// complaints are the last 40 warnings and errors in the processes' logs.
func complaints(processes ...*process) string {
	var lines []string
	for i, p := range processes {
		for line := range strings.SplitSeq(p.Logs.String(), "\n") {
			if strings.Contains(line, "WARN") || strings.Contains(line, "ERROR") {
				lines = append(lines, fmt.Sprintf("%d: %s", i, line))
			}
		}
	}
	return strings.Join(lines[max(len(lines)-40, 0):], "\n")
}

// process is `payments serve` in a role.
type process struct {
	*testbin.Process
	url string
}

func startProcess(t *testing.T, bin string, env []string, role string) *process {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	_ = ln.Close()
	url := "http://" + addr
	return &process{url: url,
		Process: testbin.Start(t, bin, append(append(os.Environ(), env...), "LISTEN_ADDR="+addr, "BASE_URL="+url), "serve", role)}
}

func (p *process) waitHealthy(t *testing.T) {
	t.Helper()
	require.Eventually(t, func() bool {
		res, err := http.Get(p.url + "/readyz")
		if err != nil {
			return false
		}
		_ = res.Body.Close()
		return res.StatusCode == http.StatusOK
	}, 20*time.Second, 50*time.Millisecond, "%s: %s", p.url, p.Logs)
}

var loadClient = &http.Client{Timeout: 20 * time.Second}

func (p *process) post(t *testing.T, key, path string, body any, idempotencyKey string, out any) int {
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, p.url+path, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	if idempotencyKey != "" {
		req.Header.Set("Idempotency-Key", idempotencyKey)
	}
	res, err := loadClient.Do(req)
	if err != nil {
		return 0 // the connection broke: retried like an answer-less request
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	if out != nil {
		_ = json.Unmarshal(data, out)
	}
	if res.StatusCode == http.StatusServiceUnavailable && res.Header.Get("Retry-After") != "" {
		return -http.StatusServiceUnavailable
	}
	return res.StatusCode
}

// create makes one payment; a 503 with Retry-After comes back as
// (503, true).
func (p *process) create(t *testing.T, key, idempotencyKey string) (int, bool) {
	status := p.post(t, key, "/api/v1/payments", map[string]any{"amount_cents": 1000}, idempotencyKey, nil)
	if status == -http.StatusServiceUnavailable {
		return http.StatusServiceUnavailable, true
	}
	return status, false
}

type loadStats struct {
	mu         sync.Mutex
	statuses   map[int]int
	retryAfter int
}

func (l *loadStats) add(status int, retryAfter bool) {
	if status == 0 {
		return // no answer: the connection broke while PostgreSQL restarted
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.statuses[status]++
	if retryAfter {
		l.retryAfter++
	}
}

// countingReceiver counts, per webhook, the requests in flight (and their
// maximum), and per event the 2xx answers given, with their times.
type countingReceiver struct {
	url      string
	down     atomic.Bool
	mu       sync.Mutex
	inFlight map[string]int
	max      int
	answered map[string][]time.Time // webhook id/event id -> when each 2xx answer was given
	arrivals []time.Time
}

func newCountingReceiver(t *testing.T) *countingReceiver {
	r := &countingReceiver{inFlight: map[string]int{}, answered: map[string][]time.Time{}}
	srv := &http.Server{Handler: http.HandlerFunc(r.serve), ReadHeaderTimeout: 5 * time.Second}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	r.url = "http://" + ln.Addr().String() + "/hooks"
	return r
}

func (r *countingReceiver) serve(w http.ResponseWriter, req *http.Request) {
	_, _ = io.Copy(io.Discard, req.Body)
	hook, event := req.Header.Get("X-Service-Webhook-Id"), req.Header.Get("X-Service-Event-Id")
	r.mu.Lock()
	r.inFlight[hook]++
	r.max = max(r.max, r.inFlight[hook])
	r.mu.Unlock()
	time.Sleep(30 * time.Millisecond) // a receiver doing a little work keeps attempts in flight
	down := r.down.Load()
	r.mu.Lock()
	r.inFlight[hook]--
	if !down {
		now := time.Now()
		r.answered[hook+"/"+event] = append(r.answered[hook+"/"+event], now)
		r.arrivals = append(r.arrivals, now)
	}
	r.mu.Unlock()
	if down {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
}

func (r *countingReceiver) setDown(down bool) { r.down.Store(down) }

func (r *countingReceiver) maxInFlight() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.max
}

// firstAfter waits up to within for a delivery answered after t.
func (r *countingReceiver) firstAfter(t time.Time, within time.Duration) time.Time {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		r.mu.Lock()
		for i := len(r.arrivals) - 1; i >= 0 && r.arrivals[i].After(t); i-- {
			if i == 0 || !r.arrivals[i-1].After(t) {
				at := r.arrivals[i]
				r.mu.Unlock()
				return at
			}
		}
		r.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
	}
	return time.Time{}
}

// missing counts the (event, webhook) pairs of events never answered 2xx.
func (r *countingReceiver) missing(events []string, hooks int) int {
	return len(r.missingIDs(events, hooks))
}

// missingIDs are the events some webhook has not answered 2xx, once per
// webhook missing.
func (r *countingReceiver) missingIDs(events []string, hooks int) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	got := map[string]int{}
	for key := range r.answered {
		got[key[strings.IndexByte(key, '/')+1:]]++
	}
	var out []string
	for _, id := range events {
		for range hooks - got[id] {
			out = append(out, id)
		}
	}
	return out
}

// duplicates are the events a webhook answered 2xx more than once, with
// the time of the first answer.
func (r *countingReceiver) duplicates() map[string]time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]time.Time{}
	for key, answers := range r.answered {
		if len(answers) > 1 {
			out[key[strings.IndexByte(key, '/')+1:]] = answers[0]
		}
	}
	return out
}

// command runs the binary once and returns its output.
func command(bin string, env []string, args ...string) (string, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	return out.String(), err
}
