package store

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
)

// withinAccountCap refuses with over when the account already has limit of
// what count selects. It locks the account's row first, so concurrent
// creations of capped objects queue and together cannot pass the cap; the
// count is a statement of its own, made after the lock, to see what the
// creations it waited for committed.
func withinAccountCap(ctx context.Context, tx bun.Tx, accountID string, count *bun.SelectQuery, limit int, over error) error {
	var locked string
	if err := tx.NewSelect().Table("accounts").Column("id").Where("id = ?", accountID).For("UPDATE").Scan(ctx, &locked); err != nil {
		return fmt.Errorf("store: lock account: %w", translate(err))
	}
	n, err := count.Conn(tx).Count(ctx)
	if err != nil {
		return fmt.Errorf("store: count for the account's cap: %w", err)
	}
	if n >= int64(limit) {
		return over
	}
	return nil
}
