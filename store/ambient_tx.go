package store

import (
	"context"
	"slices"
	"strings"

	"github.com/uptrace/bun"

	"payments/store/internal/pg"
)

// ambient is the transaction a context carries (InTx, dryRun, an
// idempotent request), or one of its savepoints: store calls made with
// that context join it.
type ambient struct {
	tx   bun.Tx
	tail *balanceTail
}

// balanceTail holds a transaction's balance statements until just before
// it commits. An account's balance row is every one of its payments', so
// its lock queues every concurrent confirmation of the account: taken where
// the posting happens, it would stay held through the rest of the operation
// (its audit row, a savepoint's release, an idempotent response) and the
// commit. Taken last, it is held for one statement and the commit. The
// ledger entries are written where the posting happens, and anything in
// the transaction that reads or debits the balance flushes the tail first.
type balanceTail struct{ stmts []pg.Statement }

type ambientTxKey struct{}

// withAmbient is ctx carrying tx, sharing the balance tail of the
// transaction ctx already carries (tx is its savepoint) or starting one.
func withAmbient(ctx context.Context, tx bun.Tx) context.Context {
	tail := new(balanceTail)
	if a, ok := ambientOf(ctx); ok {
		tail = a.tail
	}
	return context.WithValue(ctx, ambientTxKey{}, &ambient{tx: tx, tail: tail})
}

func ambientOf(ctx context.Context) (*ambient, bool) {
	a, ok := ctx.Value(ambientTxKey{}).(*ambient)
	return a, ok
}

// ambientTx is the request's transaction ctx carries, if any.
func ambientTx(ctx context.Context) (bun.Tx, bool) {
	if a, ok := ambientOf(ctx); ok {
		return a.tx, true
	}
	return bun.Tx{}, false
}

// flushBalances runs the balance statements ctx's transaction holds, if
// any: before it commits, and before it reads or debits a balance.
func flushBalances(ctx context.Context) error {
	a, ok := ambientOf(ctx)
	if !ok {
		return nil
	}
	// In the order of their accounts (Args[0]): transactions that move the
	// same accounts' money (a split charge's) lock their rows in one order.
	slices.SortStableFunc(a.tail.stmts, func(x, y pg.Statement) int { return strings.Compare(x.Args[0].(string), y.Args[0].(string)) })
	for len(a.tail.stmts) > 0 {
		if err := execIn(ctx, a.tx, "update balance", a.tail.stmts[0]); err != nil {
			return err
		}
		a.tail.stmts = a.tail.stmts[1:]
	}
	return nil
}

// savepoint runs fn in a savepoint of ctx's transaction. A savepoint rolled
// back undoes what ran inside it, balance statements flushed there
// included, so the tail goes back to what it held when the savepoint began.
func savepoint(ctx context.Context, a *ambient, fn func(ctx context.Context, sp bun.Tx) error) error {
	before := append([]pg.Statement(nil), a.tail.stmts...)
	// bun hands a savepoint's function the context its transaction began
	// with, not this one: what ctx carries since (who asked, the request's
	// span) would be lost.
	err := a.tx.RunInTx(ctx, nil, func(_ context.Context, sp bun.Tx) error { return fn(ctx, sp) })
	if err != nil {
		a.tail.stmts = before
	}
	return err
}
