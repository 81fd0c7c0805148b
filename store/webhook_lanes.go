package store

import (
	"context"
	"fmt"
)

// SetWebhookSlow moves webhook id into the slow lane (slow) or back out of
// it; a webhook already there stays as it is, its slow_since unchanged. It
// changes no updated_at: nothing the merchant set has changed.
func (s *Store) SetWebhookSlow(ctx context.Context, id string, slow bool) error {
	query := `UPDATE webhooks SET slow_since = ? WHERE id = ? AND slow_since IS NULL`
	args := []any{s.Now(), id}
	if !slow {
		query, args = `UPDATE webhooks SET slow_since = NULL WHERE id = ? AND slow_since IS NOT NULL`, []any{id}
	}
	if _, err := s.db.ExecContext(ctx, query, args...); err != nil {
		return fmt.Errorf("store: webhook lane: %w", err)
	}
	return nil
}
