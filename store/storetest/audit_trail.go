package storetest

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
)

// AuditEntry is one change in an account's audit trail.
type AuditEntry struct {
	Livemode bool   `bun:"livemode"`
	Action   string `bun:"action"`
	ObjectID string `bun:"object_id"`
	Actor    string `bun:"actor"`
}

// AuditTrail lists what was done to objectID in the account, oldest first
// (the audit_trail view of the audit log), each with who asked.
func AuditTrail(ctx context.Context, db bun.IDB, accountID, objectID string) ([]AuditEntry, error) {
	var out []AuditEntry
	err := db.NewRaw(`SELECT livemode, action, object_id, actor FROM audit_trail
		WHERE account_id = ? AND object_id = ? ORDER BY id`, accountID, objectID).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("storetest: audit trail: %w", err)
	}
	return out, nil
}
