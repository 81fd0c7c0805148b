package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"payments/pix"
	"payments/store"
	"payments/store/ids"
)

// secretKey is the service's SECRET_KEY in the benchmark (service.go).
const secretKey = "0000000000000000000000000000000000000000000000000000000000000001"

// fixture is what the timed requests need: keys, people, and the
// identifiers of a payment of the big account (one from the first days of
// the history, the oldest pages).
type fixture struct {
	BigAccount, SmallAccount string
	BigKey, SmallKey         string
	OwnerEmail, SupportEmail string
	Password                 string
	WebhookID                string
	Old                      sample
	Recent                   sample
}

// sample is one payment's identifiers.
type sample struct {
	ID, ExternalID, TxID, EndToEndID, Email, CPF, EventID, DeliveryID, RefundID string
}

// ensureLoaded migrates the database and, unless a load finished before,
// loads it to sz; it returns the fixture.
func ensureLoaded(ctx context.Context, dbURL, binary string, sz size) (*fixture, error) {
	began := time.Now()
	migrate := exec.Command(binary, "migrate")
	migrate.Env = append(os.Environ(), "DATABASE_URL="+dbURL, "SECRET_KEY="+secretKey)
	if out, err := migrate.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("migrate: %w: %s", err, out)
	}
	elapsed("migrate", began)
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, "CREATE TABLE IF NOT EXISTS scale_fixture (data jsonb NOT NULL)"); err != nil {
		return nil, err
	}
	var raw []byte
	switch err := pool.QueryRow(ctx, "SELECT data FROM scale_fixture").Scan(&raw); {
	case err == nil:
		fx := new(fixture)
		log.Printf("reusing the loaded database (%d payments)", sz.Payments)
		return fx, json.Unmarshal(raw, fx)
	case !errors.Is(err, pgx.ErrNoRows):
		return nil, err
	}
	fx, err := load(ctx, dbURL, pool, sz)
	if err != nil {
		return nil, err
	}
	raw, _ = json.Marshal(fx)
	if _, err := pool.Exec(ctx, "INSERT INTO scale_fixture (data) VALUES ($1)", raw); err != nil {
		return nil, err
	}
	return fx, nil
}

// load writes the accounts, their keys, people and webhooks through the
// store, then the history in bulk (COPY), and analyzes.
func load(ctx context.Context, dbURL string, pool *pgxpool.Pool, sz size) (*fixture, error) {
	began := time.Now()
	db, err := store.Open(ctx, dbURL, 4)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	key, _ := hex.DecodeString(secretKey)
	st, err := store.New(db, store.Options{SecretKey: key, Charges: store.Charges{
		Receiver: pix.Receiver{Key: "00000000-0000-4000-8000-000000000000", City: "SAO PAULO"}, BaseURL: "http://127.0.0.1:8080"}})
	if err != nil {
		return nil, err
	}
	fx := &fixture{OwnerEmail: "dona@scale.example.com", SupportEmail: "suporte@scale.example.com", Password: "correct-horse-battery"}
	accounts := make([]string, sz.Accounts)
	webhooks := make([]string, sz.Accounts)
	for i := range accounts {
		acct, err := st.CreateAccount(ctx, store.NewAccount{Name: fmt.Sprintf("Loja %04d", i), Email: fmt.Sprintf("loja%04d@scale.example.com", i),
			FeeBPS: store.DefaultFeeBPS})
		if err != nil {
			return nil, err
		}
		accounts[i] = acct.ID
		w, _, err := st.CreateWebhook(ctx, store.NewWebhook{Scope: store.Scope{AccountID: acct.ID}, Name: "Pedidos",
			URL: "https://hooks.example.com/" + acct.ID, APIVersion: "v2", Events: []string{"*"}, Enabled: true})
		if err != nil {
			return nil, err
		}
		webhooks[i] = w.ID
	}
	fx.BigAccount, fx.SmallAccount, fx.WebhookID = accounts[0], accounts[1], webhooks[0]
	if _, fx.BigKey, err = st.CreateAPIKey(ctx, accounts[0], false, store.NewAPIKey{Name: "scale"}); err != nil {
		return nil, err
	}
	if _, fx.SmallKey, err = st.CreateAPIKey(ctx, accounts[1], false, store.NewAPIKey{Name: "scale"}); err != nil {
		return nil, err
	}
	if _, err := st.CreateUser(ctx, fx.OwnerEmail, fx.Password, store.RoleOwner, accounts[0]); err != nil {
		return nil, err
	}
	if _, err := st.CreateUser(ctx, fx.SupportEmail, fx.Password, store.RoleSupport, ""); err != nil {
		return nil, err
	}
	elapsed(fmt.Sprintf("%d accounts, webhooks, keys and people", sz.Accounts), began)

	h := &history{sz: sz, accounts: accounts, webhooks: webhooks, end: time.Now().Add(-time.Hour)}
	h.start = h.end.Add(-time.Duration(sz.Days) * 24 * time.Hour)
	// The months of history have their partitions, as if lived through.
	if err := st.EnsurePartitions(ctx, h.start, h.end); err != nil {
		return nil, err
	}
	if err := h.copyAll(ctx, pool); err != nil {
		return nil, err
	}
	fx.Old, fx.Recent = h.sample(sz.Payments/50), h.sample(sz.Payments-190)
	step := time.Now()
	if _, err := pool.Exec(ctx, `UPDATE balances b SET available_cents = l.sum, updated_at = now()
		FROM (SELECT account_id, livemode, sum(amount_cents) AS sum FROM ledger_entries GROUP BY 1, 2) l
		WHERE b.account_id = l.account_id AND b.livemode = l.livemode`); err != nil {
		return nil, fmt.Errorf("balances: %w", err)
	}
	// The history came by COPY, past the statements that keep the
	// overview's rollups: they are made from it as migration 034 made them
	// from the history it found, with its own statements.
	if err := rollUp(ctx, pool); err != nil {
		return nil, err
	}
	if _, err := pool.Exec(ctx, "VACUUM ANALYZE"); err != nil {
		return nil, err
	}
	elapsed("balances, VACUUM ANALYZE", step)
	elapsed("the whole load", began)
	return fx, nil
}

// history generates payment i and everything it caused, deterministically.
type history struct {
	sz         size
	accounts   []string
	webhooks   []string
	start, end time.Time
}

// Payment i's shape: a tenth belong to the big account; 70% are
// paid, 15% expired, 5% canceled, the rest pending (expired unless within
// the last day); one paid in fifty was refunded.
func (h *history) at(i int) time.Time {
	return h.start.Add(time.Duration(float64(h.end.Sub(h.start)) * float64(i) / float64(h.sz.Payments)))
}

func (h *history) account(i int) int {
	if (i/20)%10 == 0 || len(h.accounts) == 1 {
		return 0 // twenty in every two hundred: every status, like the rest
	}
	return 1 + i%(len(h.accounts)-1)
}

func (h *history) status(i int) string {
	switch r := i % 20; {
	case r < 14:
		if i%50 == 7 {
			return store.StatusRefunded
		}
		return store.StatusPaid
	case r < 17:
		return store.StatusExpired
	case r < 18:
		return store.StatusCanceled
	}
	if h.end.Sub(h.at(i)) < 24*time.Hour {
		return store.StatusPending
	}
	return store.StatusExpired
}

func (h *history) paymentID(i int) uuid.UUID {
	u := ids.NewPayment(h.at(i))
	// Deterministic beyond the time: the sample's identifiers are
	// found again by recomputing them.
	copy(u[8:], []byte(fmt.Sprintf("%08d", i)))
	u[8] = 0x80 | (u[8] & 0x3f)
	return u
}

func amount(i int) int64      { return int64(1000 + (i*7919)%90000) }
func externalID(i int) string { return "pedido-" + strconv.Itoa(i) }
func txid(i int) string       { return fmt.Sprintf("TXSCALE%025d", i) }
func email(i int) string      { return fmt.Sprintf("cliente%d@example.com", i) }
func cpf(i int) string        { return fmt.Sprintf("%011d", 10_000_000_000+i) }
func endToEndID(i int, t time.Time) string {
	return "E99999999" + t.UTC().Format("200601021504") + fmt.Sprintf("%011d", i)
}

// mint makes an id of prefix at t, as the service would, whose random
// part is i and k: the same i and k give the same id (an event's
// deliveries name it; a sample is found again).
func mint(prefix string, t time.Time, i, k int) string {
	return ids.AtSeq(prefix, t, uint64(i)<<8|uint64(k))
}

func (h *history) sample(i int) sample {
	t := h.at(i)
	s := sample{ID: h.paymentID(i).String(), ExternalID: externalID(i), TxID: txid(i), Email: email(i), CPF: cpf(i),
		EventID: mint(ids.PrefixEvent, t, i, 0), DeliveryID: mint(ids.PrefixDelivery, t, i, 0)}
	if st := h.status(i); st == store.StatusPaid || st == store.StatusRefunded {
		s.EndToEndID = endToEndID(i, t.Add(30*time.Second))
	}
	return s
}

// rollUp runs migration 034's statements that fill the rollups from the
// tables (its INSERTs).
func rollUp(ctx context.Context, pool *pgxpool.Pool) error {
	sql, err := fs.ReadFile(store.MigrationFiles(), "migrations/034_overview_rollups.tx.up.sql")
	if err != nil {
		return err
	}
	for _, stmt := range strings.Split(string(sql), ";\n") {
		if i := strings.Index(stmt, "INSERT INTO"); i >= 0 && !strings.Contains(stmt[:i], "CREATE") {
			if _, err := pool.Exec(ctx, stmt[i:]); err != nil {
				return fmt.Errorf("rollups: %w", err)
			}
		}
	}
	return nil
}
