package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"

	"payments/store/internal/pg"
)

// FinishTogether records successes as one batch (one statement), as
// concurrent dispatcher workers' successes are, for the tests to check the
// batch statement directly. Every success asks for its next delivery with
// next (nil: none).
func (s *Store) FinishTogether(ctx context.Context, ds []*Delivery, token string, attempts []*DeliveryAttempt,
	next *ClaimParams,
) ([]bool, []*Delivery, error) {
	nexts := make([]*ClaimParams, len(ds))
	for i := range nexts {
		nexts[i] = next
	}
	return s.FinishEach(ctx, ds, token, attempts, nexts)
}

// FinishEach is FinishTogether with each success's own request for a next
// delivery.
func (s *Store) FinishEach(ctx context.Context, ds []*Delivery, token string, attempts []*DeliveryAttempt,
	nexts []*ClaimParams,
) ([]bool, []*Delivery, error) {
	batch := make([]Success, len(ds))
	for i, d := range ds {
		own := token // a claim leases each delivery under a token of its own (token.n)
		if d.LeaseToken != nil && strings.HasPrefix(*d.LeaseToken, token) {
			own = *d.LeaseToken
		}
		batch[i] = Success{Delivery: d, Token: own, Attempt: attempts[i], Next: nexts[i]}
	}
	held, following := make([]bool, len(ds)), make([]*Delivery, len(ds))
	for i, out := range s.FinishSuccesses(ctx, batch) {
		if out.Err != nil {
			return nil, nil, out.Err
		}
		held[i] = out.Held
		if len(out.Next) > 0 {
			following[i] = out.Next[0]
		}
	}
	return held, following, nil
}

// FinishOne records one success, tried again (Again) or not.
func (s *Store) FinishOne(ctx context.Context, d *Delivery, token string, attempt *DeliveryAttempt, again bool) Finished {
	return s.FinishSuccesses(ctx, []Success{{Delivery: d, Token: token, Attempt: attempt, Again: again}})[0]
}

// ReadTogether reads payments by id as one batch (one statement), as
// concurrent reads are, for the tests to check the batch statement directly.
func (s *Store) ReadTogether(ctx context.Context, scopes []Scope, ids []uuid.UUID) ([]*Payment, []error) {
	batch := make([]paymentRead, len(ids))
	for i, id := range ids {
		batch[i] = paymentRead{id: id, scope: scopes[i]}
	}
	ps, errs := make([]*Payment, len(ids)), make([]error, len(ids))
	for i, out := range s.servePaymentReads(ctx, batch) {
		ps[i], errs[i] = out.Out, out.Err
	}
	return ps, errs
}

// CreateTogether creates payments as one batch, as concurrent creations
// are; each error is what CreatePayment would return.
func (s *Store) CreateTogether(ctx context.Context, ps []*Payment) []error {
	batch := make([]paymentCreate, len(ps))
	for i, p := range ps {
		batch[i] = newPaymentCreate(p)
	}
	errs := make([]error, len(ps))
	for i, out := range s.serveCreates(ctx, batch) {
		if out.Err != nil {
			errs[i] = translate(out.Err)
		}
	}
	return errs
}

// CreateInOneStatement runs only the batch's one statement (no creation one
// by one when it fails): created[i] is false for a taken external_id.
func (s *Store) CreateInOneStatement(ctx context.Context, ps []*Payment) ([]bool, error) {
	batch := make([]paymentCreate, len(ps))
	for i, p := range ps {
		batch[i] = newPaymentCreate(p)
	}
	return s.createBatch(ctx, batch)
}

// Translate is translate, for errors the tests get from unexported paths.
func Translate(err error) error { return translate(err) }

// ClaimSQL is the claim's statement, for a test to read its plan's buffers.
const ClaimSQL = claimSQL

// QueuedBefore is the bound the claim's last argument takes.
func QueuedBefore() string { return queuedBefore() }

// ClaimLockSQL precedes the claim in its transaction, with the settings it is planned under.
const ClaimLockSQL = claimLockSQL

// Compiling makes PostgreSQL compile every plan with LLVM, inlined and
// optimized (its costs' thresholds at 0), unless a statement's own settings
// say otherwise: what a generic plan estimated past the thresholds gets.
const Compiling = `SELECT set_config('jit_above_cost', '0', true), set_config('jit_inline_above_cost', '0', true),
	set_config('jit_optimize_above_cost', '0', true)`

// FinishPlanJSON runs the finish of a batch of successes under EXPLAIN
// (ANALYZE, BUFFERS, FORMAT JSON), as the dispatcher runs it (its settings,
// the generic plan of its prepared statement), in a transaction rolled back
// after the settings before (if any) and the finish's own.
func (s *Store) FinishPlanJSON(ctx context.Context, batch []Success, before ...string) ([]byte, error) {
	args, _ := finishSuccessesArgs(batch, nil)
	for i, arg := range args {
		// EXPLAIN EXECUTE carries its values in the SQL text, where pgx
		// writes bytes as bytea: the header maps' JSON goes as text there.
		if texts, ok := arg.([][]byte); ok {
			strs := make([]*string, len(texts))
			for j, text := range texts {
				if text != nil {
					strs[j] = ptr(string(text))
				}
			}
			args[i] = strs
		}
	}
	plans, err := s.ExplainGeneric(ctx, append(before, pg.RelaxedKeyProbePlanSQL), finishSuccessesSQL, 1, args...)
	if err != nil {
		return nil, err
	}
	return plans[0], nil
}

// ReleasePlanJSON gives back deliveries (ReleaseDeliveries) under EXPLAIN
// (ANALYZE, BUFFERS, FORMAT JSON), as the dispatcher runs it, in a
// transaction rolled back after.
func (s *Store) ReleasePlanJSON(ctx context.Context, ids, tokens []string) ([]byte, error) {
	plans, err := s.ExplainGeneric(ctx, []string{pg.KeyProbePlanSQL}, releaseDeliveriesSQL, 1, ids, tokens)
	if err != nil {
		return nil, err
	}
	return plans[0], nil
}

// ExplainGeneric prepares query on one connection and runs it runs times
// under EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) with its generic plan (the
// plan PostgreSQL settles on for the dispatcher's prepared statements),
// each in a transaction rolled back after settings (the statements that
// precede query in its transaction). The later runs find the connection's
// caches warm. It returns each run's plan.
func (s *Store) ExplainGeneric(ctx context.Context, settings []string, query string, runs int, args ...any) ([][]byte, error) {
	conn, err := s.db.DB.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PREPARE explained AS "+query); err != nil {
		return nil, err
	}
	defer conn.ExecContext(ctx, "DEALLOCATE explained")
	placeholders := make([]string, len(args))
	for i := range placeholders {
		placeholders[i] = fmt.Sprintf("$%d", i+1)
	}
	explain := "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE explained(" + strings.Join(placeholders, ", ") + ")"
	var plans [][]byte
	for range runs {
		var raw []byte
		err := func() error {
			tx, err := conn.BeginTx(ctx, nil)
			if err != nil {
				return err
			}
			defer tx.Rollback()
			for _, setting := range settings {
				if _, err := tx.ExecContext(ctx, setting); err != nil {
					return err
				}
			}
			if _, err := tx.ExecContext(ctx, "SET LOCAL plan_cache_mode = force_generic_plan"); err != nil {
				return err
			}
			return tx.QueryRowContext(ctx, explain, args...).Scan(&raw)
		}()
		if err != nil {
			return nil, err
		}
		plans = append(plans, raw)
	}
	return plans, nil
}

// ClaimPlans counts the executions of the claim on the connection claims
// run on that used its generic plan and those that planned it afresh
// (pg_prepared_statements, that connection's own).
func (s *Store) ClaimPlans(ctx context.Context) (generic, custom int64, err error) {
	err = s.claims.Pipelined(ctx, []pg.Statement{{SQL: `SELECT coalesce(sum(generic_plans), 0)::bigint,
		coalesce(sum(custom_plans), 0)::bigint FROM pg_prepared_statements WHERE statement = $1`, Args: []any{claimSQL}}},
		func(_ int, rows pgx.Rows) error {
			for rows.Next() {
				if err := rows.Scan(&generic, &custom); err != nil {
					return err
				}
			}
			return rows.Err()
		})
	return generic, custom, err
}

// ForgetFilters drops what the store remembers of filtered webhooks, as
// filterTTL's passing does: the next event written reads them again.
func (s *Store) ForgetFilters() { s.filters.forget() }

// AccountFromThePool reads the account id from the pool inside a
// transaction of the store's own, as a writer that forgot to hand its
// transaction down would (held_conn.go).
func (s *Store) AccountFromThePool(ctx context.Context, id string) error {
	return s.inTx(ctx, func(ctx context.Context, _ bun.Tx) error {
		_, err := s.Account(ctx, id)
		return err
	})
}
