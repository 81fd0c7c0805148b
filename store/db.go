package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"payments/pix"
	"payments/store/internal/pg"
	"payments/store/internal/secretbox"
)

// Open connects to PostgreSQL through pgx's database/sql driver and checks
// the connection.
func Open(ctx context.Context, dsn string, maxConns int) (*bun.DB, error) {
	return open(ctx, dsn, maxConns, true)
}

// OpenReplica is Open for a replica: it does not ask the server to answer
// (one away when the service starts is not used until it is back).
func OpenReplica(dsn string, maxConns int) (*bun.DB, error) {
	return open(context.Background(), dsn, maxConns, false)
}

func open(ctx context.Context, dsn string, maxConns int, ping bool) (*bun.DB, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		// pgx's parse error can quote the DSN, password included: keep it out.
		return nil, fmt.Errorf("store: DATABASE_URL is not a valid PostgreSQL URL")
	}
	// bun writes every argument into the SQL text itself, so each query is
	// new text: preparing it (pgx's default) would cost a second round trip
	// and a server-side statement per distinct query. The simple protocol
	// sends it once.
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	sqldb := stdlib.OpenDB(*cfg)
	if maxConns <= 0 {
		maxConns = 20
	}
	sqldb.SetMaxOpenConns(maxConns)
	sqldb.SetMaxIdleConns(maxConns)
	sqldb.SetConnMaxIdleTime(5 * time.Minute)
	// A column a newer migration added is skipped, not an error: during a
	// rolling deploy the old binaries keep reading rows the new schema
	// widened (found when a binary of the previous release failed every
	// claim on `SELECT *` from webhooks after migration 013).
	db := bun.NewDB(sqldb, pgdialect.New(), bun.WithDiscardUnknownColumns())
	if !ping {
		return db, nil
	}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(pingCtx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("store: connect to %s:%d/%s: %w", cfg.Host, cfg.Port, cfg.Database, err)
	}
	return db, nil
}

// Store is the service's data access. Its methods take a context and use the
// request's idempotency transaction when the context carries one.
type Store struct {
	db  *bun.DB
	now func() time.Time
	box *secretbox.Box
	// charges is where new payments point payers (see BuildPayment).
	charges Charges
	// reads batches concurrent reads of payments by id (payments_prepared.go).
	reads *paymentReads
	// creates batches payment creations (payments_prepared.go).
	creates *paymentCreates
	// successes batches the dispatcher's successes (deliveries_prepared.go).
	successes *successBatches
	// claims and finishes are the connections the dispatcher's claim and
	// its batches of successes run on (pinned.go).
	claims, finishes *pg.Pinned
	// hashing is the cost of the password hashes it makes.
	hashing PasswordHashing
	// decoy is a password hash made once, for sign-ins of unknown e-mails.
	decoy decoyHash
	// replica serves the reads that may lag, when there is one (replica.go).
	replica *Replica
	// families remembers which accounts a charge may split to (splits.go).
	families *splitFamilies
	// filters remembers the accounts' filtered webhooks (webhook_filters.go).
	filters *webhookFilters
	// webhookCopies remembers the webhooks claims read (claimed_webhooks.go).
	webhookCopies *webhookCopies
	// checkNesting is whether the store checks that no transaction's
	// goroutine takes a second connection (held_conn.go): in test binaries.
	checkNesting bool
}

// Charges is what every new payment carries besides its own data: the
// platform's PIX account its BR Code pays into, and the public URL its
// checkout page and QR image are served under.
type Charges struct {
	Receiver pix.Receiver
	// BaseURL is the service's public URL, without a trailing slash.
	BaseURL string
}

// Options configure a Store.
type Options struct {
	// Now is the clock for every timestamp the store writes; nil is time.Now.
	Now func() time.Time
	// SecretKey (32 bytes) seals webhook secrets; without it webhooks cannot
	// be created or signed.
	SecretKey []byte
	// Charges completes the payments BuildPayment makes.
	Charges Charges
	// Replica, if any, serves the reads that may lag (MayLag).
	Replica *Replica
	// PasswordHashing is the cost of the password hashes the store makes;
	// the zero value is DefaultPasswordHashing, and less than
	// MinimumPasswordHashing is refused.
	PasswordHashing PasswordHashing
}

// New returns a Store over db.
func New(db *bun.DB, opts Options) (*Store, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.PasswordHashing == (PasswordHashing{}) {
		opts.PasswordHashing = DefaultPasswordHashing()
	}
	if !opts.PasswordHashing.atLeastMinimum() {
		return nil, fmt.Errorf("store: password hashing %+v is below the minimum %+v", opts.PasswordHashing, MinimumPasswordHashing())
	}
	box, err := secretbox.New(opts.SecretKey)
	if err != nil {
		return nil, err
	}
	s := &Store{db: db, now: opts.Now, box: box, charges: opts.Charges, replica: opts.Replica, hashing: opts.PasswordHashing,
		checkNesting: testing.Testing()}
	s.reads, s.creates, s.successes = newPaymentReads(s), newPaymentCreates(s), newSuccessBatches(s)
	s.claims, s.finishes = pinned(db.DB, 1), pinned(db.DB, successBatchesInFlight)
	s.families = &splitFamilies{known: map[string]splitFamily{}}
	s.filters, s.webhookCopies = newWebhookFilters(), newWebhookCopies()
	return s, nil
}

// DB exposes the handle for health checks and maintenance.
func (s *Store) DB() *bun.DB { return s.db }

// Now is the store's clock, truncated to the milliseconds the API shows.
func (s *Store) Now() time.Time { return s.now().UTC().Truncate(time.Millisecond) }

// instant is the store's clock as precise as it is: a new payment's id
// takes it (ids.NewPayment keeps its fraction of a millisecond, so that ids
// made in one millisecond sort in creation order), and its created_at its
// truncation (Now's precision).
func (s *Store) instant() time.Time { return s.now().UTC() }

// Scope is whose data a request sees: one account in one mode.
type Scope struct {
	AccountID string
	Livemode  bool
}

// idb returns the ambient transaction when ctx carries one, else the
// replica inside a read that may lag (lagging), else the pool.
func (s *Store) idb(ctx context.Context) bun.IDB {
	if tx, ok := ambientTx(ctx); ok {
		return tx
	}
	if db, ok := ctx.Value(replicaDBKey{}).(*bun.DB); ok {
		return db
	}
	s.fromPool(ctx, "a store call")
	return s.db
}

// inTx runs fn in a transaction; inside an ambient transaction it uses a
// savepoint, so a failed step (a unique violation, say) rolls back only itself
// and the outer request can still record its response.
func (s *Store) inTx(ctx context.Context, fn func(ctx context.Context, tx bun.Tx) error) error {
	if a, ok := ambientOf(ctx); ok {
		return savepoint(ctx, a, fn)
	}
	return s.db.RunInTx(s.takesConn(ctx, "a transaction"), &sql.TxOptions{}, fn)
}

// errDryRun rolls back a transaction whose only purpose was to ask.
var errDryRun = errors.New("store: dry run")

// dryRun runs fn in a transaction that is always rolled back and returns
// fn's error: whether an operation would succeed now, by its own rules.
// Store calls made with the context fn receives join the transaction.
func (s *Store) dryRun(ctx context.Context, fn func(ctx context.Context, tx bun.Tx) error) error {
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := fn(withAmbient(ctx, tx), tx); err != nil {
			return err
		}
		return errDryRun
	})
	if errors.Is(err, errDryRun) {
		return nil
	}
	return err
}

// InTx runs fn in one transaction: every store call made with the context fn
// receives joins it. Inside a transaction already (ctx carries one), fn runs
// in a savepoint of it. Operations and admin commands use it to make related
// changes together.
func (s *Store) InTx(ctx context.Context, fn func(ctx context.Context) error) error {
	_, nested := ambientOf(ctx)
	return s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		ctx = withAmbient(ctx, tx)
		if err := fn(ctx); err != nil {
			return err
		}
		if nested {
			return nil // the transaction's own end flushes
		}
		return flushBalances(ctx)
	})
}

// execIn runs a prepared statement in tx; what names it in the error.
func execIn(ctx context.Context, tx bun.Tx, what string, st pg.Statement) error {
	if _, err := tx.Tx.ExecContext(ctx, st.SQL, pg.Prepared(st.Args...)...); err != nil {
		return fmt.Errorf("store: %s: %w", what, translate(err))
	}
	return nil
}

// hotRow runs a prepared query (see doc.go) and scans its first row into
// dest; no row is an error that errors.Is sql.ErrNoRows. In an ambient
// transaction it runs there, else on a pooled connection as pgx's own.
func (s *Store) hotRow(ctx context.Context, query string, args []any, dest ...any) error {
	if tx, ok := ambientTx(ctx); ok {
		return tx.Tx.QueryRowContext(ctx, query, pg.Prepared(args...)...).Scan(dest...)
	}
	s.fromPool(ctx, "a prepared read")
	return pg.Row(ctx, s.db.DB, query, args, dest...)
}
