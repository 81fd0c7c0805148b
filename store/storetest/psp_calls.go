package storetest

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
)

// PSPCallsByStatus counts the PSP calls per kind and status.
func PSPCallsByStatus(ctx context.Context, db bun.IDB) (map[string]map[string]int, error) {
	var rows []struct {
		Kind   string `bun:"kind"`
		Status string `bun:"status"`
		N      int    `bun:"n"`
	}
	if err := db.NewRaw("SELECT kind, status, count(*) AS n FROM psp_calls GROUP BY kind, status").Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("storetest: psp calls by status: %w", err)
	}
	out := map[string]map[string]int{}
	for _, r := range rows {
		if out[r.Kind] == nil {
			out[r.Kind] = map[string]int{}
		}
		out[r.Kind][r.Status] = r.N
	}
	return out, nil
}
