package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// IdempotencyTTL is how long a stored response answers replays of its key.
const IdempotencyTTL = 24 * time.Hour

// IdempotencyKey is the stored outcome of a request that carried a key.
type IdempotencyKey struct {
	bun.BaseModel `bun:"table:idempotency_keys"`

	AccountID      string    `bun:"account_id,pk"`
	Livemode       bool      `bun:"livemode,pk"`
	Key            string    `bun:"key,pk"`
	RequestHash    []byte    `bun:"request_hash"`
	ResponseStatus int       `bun:"response_status"`
	ResponseBody   []byte    `bun:"response_body"`
	CreatedAt      time.Time `bun:"created_at"`
}

// IdempotentRequest is a request running under its key. It holds one
// transaction for the request's whole life: the key's advisory lock marks it
// in flight, and the request's writes commit together with its stored
// response, so a crash can never leave a payment without its replay record.
type IdempotentRequest struct {
	store *Store
	tx    bun.Tx
	// ambient is tx as the request's store calls join it, with the balance
	// statements it holds until the commit.
	ambient *ambient
	row     IdempotencyKey
	// Replay is the stored response when the key was used before with the
	// same request; the caller answers with it and calls Release.
	Replay *IdempotencyKey
}

// BeginIdempotent claims key for a request whose method, path and body hash
// to requestHash. It fails with ErrIdempotencyInFlight when another request
// holds the key and ErrIdempotencyMismatch when the key was used for a
// different request in the last IdempotencyTTL.
func (s *Store) BeginIdempotent(ctx context.Context, scope Scope, key string, requestHash []byte) (*IdempotentRequest, error) {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{})
	if err != nil {
		return nil, fmt.Errorf("store: idempotency: begin: %w", err)
	}
	r := &IdempotentRequest{store: s, tx: tx, ambient: &ambient{tx: tx, tail: new(balanceTail)}, row: IdempotencyKey{
		AccountID: scope.AccountID, Livemode: scope.Livemode, Key: key, RequestHash: requestHash,
	}}
	if err := r.claim(ctx); err != nil {
		_ = tx.Rollback()
		return nil, err
	}
	return r, nil
}

func (r *IdempotentRequest) claim(ctx context.Context) error {
	var locked bool
	err := r.tx.QueryRowContext(ctx,
		"SELECT pg_try_advisory_xact_lock(hashtextextended(?, 0))",
		fmt.Sprintf("idem|%s|%t|%s", r.row.AccountID, r.row.Livemode, r.row.Key),
	).Scan(&locked)
	if err != nil {
		return fmt.Errorf("store: idempotency: lock: %w", err)
	}
	if !locked {
		return ErrIdempotencyInFlight
	}
	prev := new(IdempotencyKey)
	err = r.tx.NewSelect().Model(prev).
		Where("account_id = ? AND livemode = ? AND key = ?", r.row.AccountID, r.row.Livemode, r.row.Key).
		Scan(ctx)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil
	case err != nil:
		return fmt.Errorf("store: idempotency: read: %w", err)
	case r.store.Now().Sub(prev.CreatedAt) >= IdempotencyTTL:
		return nil // expired: the key is free again, Finish overwrites the row
	case !bytes.Equal(prev.RequestHash, r.row.RequestHash):
		return ErrIdempotencyMismatch
	}
	r.Replay = prev
	return nil
}

// Context returns ctx carrying the request's transaction: store calls made
// with it join the transaction (each in a savepoint of its own).
func (r *IdempotentRequest) Context(ctx context.Context) context.Context {
	return context.WithValue(ctx, ambientTxKey{}, r.ambient)
}

// Finish stores the response and commits the request's writes with it.
func (r *IdempotentRequest) Finish(ctx context.Context, status int, body []byte) error {
	r.row.ResponseStatus = status
	r.row.ResponseBody = body
	r.row.CreatedAt = r.store.Now()
	_, err := r.tx.NewInsert().Model(&r.row).
		On("CONFLICT (account_id, livemode, key) DO UPDATE").
		Set("request_hash = EXCLUDED.request_hash").
		Set("response_status = EXCLUDED.response_status").
		Set("response_body = EXCLUDED.response_body").
		Set("created_at = EXCLUDED.created_at").
		Exec(ctx)
	if err == nil {
		err = flushBalances(r.Context(ctx))
	}
	if err != nil {
		_ = r.tx.Rollback()
		return fmt.Errorf("store: idempotency: save response: %w", err)
	}
	if err := r.tx.Commit(); err != nil {
		return fmt.Errorf("store: idempotency: commit: %w", err)
	}
	return nil
}

// Release rolls back everything the request wrote and frees the key, for
// replays and for failures that must not be remembered (5xx).
func (r *IdempotentRequest) Release() {
	_ = r.tx.Rollback()
}

// PruneIdempotencyKeys deletes keys older than IdempotencyTTL, at most limit
// at a time, and returns how many it deleted.
func (s *Store) PruneIdempotencyKeys(ctx context.Context, limit int) (int, error) {
	res, err := s.db.NewDelete().Model((*IdempotencyKey)(nil)).
		Where("ctid IN (SELECT ctid FROM idempotency_keys WHERE created_at < ? LIMIT ?)",
			s.Now().Add(-IdempotencyTTL), limit).
		Exec(ctx)
	if err != nil {
		return 0, fmt.Errorf("store: prune idempotency keys: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}
