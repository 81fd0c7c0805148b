package store

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// Sentinel errors callers branch on with errors.Is. The store never returns
// nil, nil: a missing row is ErrNotFound.
var (
	ErrNotFound = errors.New("store: not found")
	// ErrConflict is a unique-constraint violation (SQLSTATE 23505).
	ErrConflict = errors.New("store: conflict")
	// ErrInvalidTransition means the object's current status does not allow the change.
	ErrInvalidTransition = errors.New("store: invalid status transition")
	// ErrBalanceInsufficient means a debit that must be covered (a withdrawal,
	// a refund) is larger than the available balance.
	ErrBalanceInsufficient = errors.New("store: available balance insufficient")
	// ErrPaymentDisputed means a payment's money is held by an open dispute.
	ErrPaymentDisputed = errors.New("store: payment has an open dispute")
	// ErrIdempotencyInFlight means another request holding the same key is still running.
	ErrIdempotencyInFlight = errors.New("store: idempotency key in flight")
	// ErrIdempotencyMismatch means the key was used before with a different request.
	ErrIdempotencyMismatch = errors.New("store: idempotency key reused with another request")
)

const uniqueViolation = "23505"

func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }

// translate maps driver errors onto the sentinels, keeping the original wrapped.
func translate(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		return errors.Join(ErrNotFound, err)
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == uniqueViolation {
		return &ConflictError{Constraint: pgErr.ConstraintName, err: err}
	}
	return err
}

// ConflictError names the unique constraint that was violated.
type ConflictError struct {
	Constraint string
	err        error
}

func (e *ConflictError) Error() string        { return "store: conflict on " + e.Constraint }
func (e *ConflictError) Unwrap() []error      { return []error{ErrConflict, e.err} }
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// InvalidTransitionError says which status refused a change, and of what
// object ("payment" when Object is empty).
type InvalidTransitionError struct {
	Object string
	Status string
}

func (e *InvalidTransitionError) Error() string {
	object := e.Object
	if object == "" {
		object = "payment"
	}
	return "store: " + object + " is " + e.Status
}

func (e *InvalidTransitionError) Is(target error) bool { return target == ErrInvalidTransition }

// Aborted says err is PostgreSQL's abort of a transaction that lost a
// deadlock or a serialization conflict (SQLSTATE 40P01, 40001): nothing it
// wrote stays, and the same transaction tried again may well succeed.
func Aborted(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40P01" || pgErr.Code == "40001")
}

// Unavailable says err means the database could not be reached or went
// away (it is restarting, shutting down, out of connections, or the
// network to it failed), not that the request was wrong: callers answer
// "retry later" (503) rather than report a failure of their own.
func Unavailable(err error) bool {
	if err == nil {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case strings.HasPrefix(pgErr.Code, "08"), // connection exception
			pgErr.Code == "57P01", pgErr.Code == "57P02", pgErr.Code == "57P03", // admin/crash shutdown, cannot connect now
			pgErr.Code == "53300": // too many connections
			return true
		}
		return false
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connectErr) || errors.As(err, &netErr) || errors.Is(err, driver.ErrBadConn) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, sql.ErrConnDone) || pgconn.SafeToRetry(err) ||
		strings.Contains(err.Error(), "conn closed") || strings.Contains(err.Error(), "closed pool")
}
