package store

import (
	"context"
	"fmt"
)

// foldBatch bounds one fold's statement: a backlog (a folder stopped for
// a while) is moved in steps that each hold their rows' locks briefly.
const foldBatch = 10_000

// foldRollupsSQL moves up to foldBatch rows of rollup_deltas into
// overview_hours and customers in one statement, so that a reader sees
// each event's figures in one of the two places, never both nor neither.
// A payer's e-mail is the latest charge's that has one (a subscription's
// cycles have none). Rows are written in key order: two folders (two dispatchers) lock them
// in the same order. A delta another folder took meanwhile is not
// returned by this one's DELETE.
const foldRollupsSQL = `WITH moved AS (
		DELETE FROM rollup_deltas WHERE ctid IN (SELECT ctid FROM rollup_deltas LIMIT ?)
		RETURNING *
	), hours AS (
		INSERT INTO overview_hours AS o (account_id, livemode, hour, created, paid, gross_cents, fee_cents, expired, canceled,
			refunds, refunded_cents, disputes, disputed_cents, pay_0, pay_1, pay_2, pay_3, pay_4, pay_5, pay_6, pay_7, pay_8, pay_9)
		SELECT account_id, livemode, hour, sum(created), sum(paid), sum(gross_cents), sum(fee_cents), sum(expired),
			sum(canceled), sum(refunds), sum(refunded_cents), sum(disputes), sum(disputed_cents),
			count(*) FILTER (WHERE pay_bucket = 0), count(*) FILTER (WHERE pay_bucket = 1),
			count(*) FILTER (WHERE pay_bucket = 2), count(*) FILTER (WHERE pay_bucket = 3),
			count(*) FILTER (WHERE pay_bucket = 4), count(*) FILTER (WHERE pay_bucket = 5),
			count(*) FILTER (WHERE pay_bucket = 6), count(*) FILTER (WHERE pay_bucket = 7),
			count(*) FILTER (WHERE pay_bucket = 8), count(*) FILTER (WHERE pay_bucket = 9)
		FROM moved GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
		ON CONFLICT (account_id, livemode, hour) DO UPDATE SET
			created = o.created + excluded.created, paid = o.paid + excluded.paid,
			gross_cents = o.gross_cents + excluded.gross_cents, fee_cents = o.fee_cents + excluded.fee_cents,
			expired = o.expired + excluded.expired, canceled = o.canceled + excluded.canceled,
			refunds = o.refunds + excluded.refunds, refunded_cents = o.refunded_cents + excluded.refunded_cents,
			disputes = o.disputes + excluded.disputes, disputed_cents = o.disputed_cents + excluded.disputed_cents,
			pay_0 = o.pay_0 + excluded.pay_0, pay_1 = o.pay_1 + excluded.pay_1, pay_2 = o.pay_2 + excluded.pay_2,
			pay_3 = o.pay_3 + excluded.pay_3, pay_4 = o.pay_4 + excluded.pay_4, pay_5 = o.pay_5 + excluded.pay_5,
			pay_6 = o.pay_6 + excluded.pay_6, pay_7 = o.pay_7 + excluded.pay_7, pay_8 = o.pay_8 + excluded.pay_8,
			pay_9 = o.pay_9 + excluded.pay_9
	), payers AS (
		INSERT INTO customers AS c (account_id, livemode, document, name, email, payments, paid, paid_cents,
			first_charge_at, last_charge_at)
		SELECT account_id, livemode, document, (array_agg(name ORDER BY charged_at DESC))[1],
			coalesce((array_agg(email ORDER BY charged_at DESC) FILTER (WHERE email <> ''))[1], ''), sum(created), sum(paid), sum(gross_cents),
			min(charged_at), max(charged_at)
		FROM moved WHERE document IS NOT NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
		ON CONFLICT (account_id, livemode, document) DO UPDATE SET
			name = CASE WHEN excluded.last_charge_at >= c.last_charge_at THEN excluded.name ELSE c.name END,
			email = CASE WHEN excluded.last_charge_at >= c.last_charge_at AND excluded.email <> '' THEN excluded.email ELSE c.email END,
			payments = c.payments + excluded.payments, paid = c.paid + excluded.paid,
			paid_cents = c.paid_cents + excluded.paid_cents,
			first_charge_at = least(c.first_charge_at, excluded.first_charge_at),
			last_charge_at = greatest(c.last_charge_at, excluded.last_charge_at)
	)
	SELECT count(*) FROM moved`

// FoldRollups moves what committed changes appended to rollup_deltas into
// the overview's hours and the payers (Clientes), a batch per statement,
// until none is left; it returns how many it moved. The maintenance jobs
// run it every second.
func (s *Store) FoldRollups(ctx context.Context) (int, error) {
	var total int
	for {
		var n int
		if err := s.db.NewRaw(foldRollupsSQL, foldBatch).Scan(ctx, &n); err != nil {
			return total, fmt.Errorf("store: fold rollups: %w", err)
		}
		if total += n; n < foldBatch {
			return total, nil
		}
	}
}
