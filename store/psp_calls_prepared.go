package store

import (
	"time"

	"payments/store/ids"
	"payments/store/internal/pg"
)

// queueCallStatement is queueCall's statement: the call's row, and the
// worker's wake-up.
func (s *Store) queueCallStatement(accountID *string, kind, objectID string, at time.Time) pg.Statement {
	now := s.Now()
	if at.IsZero() {
		at = now
	}
	return pg.Statement{SQL: `WITH c AS (
			INSERT INTO psp_calls (id, account_id, kind, object_id, status, attempts, next_attempt_at, created_at, updated_at)
			VALUES ($1, $2, $3, $4, '` + CallPending + `', 0, $5, $6, $6)
			RETURNING 1
		)
		SELECT pg_notify('` + PSPCallsChannel + `', '') FROM c`,
		Args: []any{ids.New(PrefixPSPCall), accountID, kind, objectID, at, now}}
}
