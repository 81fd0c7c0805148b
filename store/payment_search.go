package store

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
)

// MaxSearch is the longest search term taken; a longer one finds nothing.
const MaxSearch = 200

// wherePaymentMatches narrows q (a select of payments AS payment) to the
// payments term names, by whatever a payer, a merchant or support reads
// out: the payment's id, its external_id, its Pix txid, the endToEndId of a
// transfer that paid it or of a devolução that returned it, a refund's id
// (re_...), the customer's e-mail (any case), CPF or CNPJ (with or without
// punctuation), the start of the customer's name or a part of the
// description (three characters at least; any case, with or without
// accents: "joao" finds "João"). The merchant's list and support's search
// both ask it, so they find the same things; each condition has its index.
func (s *Store) wherePaymentMatches(ctx context.Context, q *bun.SelectQuery, term string) (*bun.SelectQuery, error) {
	digits := strings.Map(func(r rune) rune {
		if strings.ContainsRune(".-/ ", r) {
			return -1
		}
		return r
	}, term)
	switch id, isID := ParsePaymentID(term); {
	case utf8.RuneCountInString(term) > MaxSearch:
		return q.Where("false"), nil
	case isID:
		return q.Where("(payment.id = ? OR payment.external_id = ?)", id, term), nil
	case strings.Contains(term, "@"):
		return q.Where("(payment.customer IS NOT NULL AND lower(payment.customer ->> 'email') = lower(?) OR payment.external_id = ?)", term, term), nil
	case (len(digits) == 11 || len(digits) == 14) && strings.Trim(digits, "0123456789") == "":
		return q.Where("(payment.customer IS NOT NULL AND payment.customer ->> 'document' = ? OR payment.external_id = ?)", digits, term), nil
	}
	// The payments a transfer's, a devolução's or a refund's id names are
	// looked up first: as ids in the condition below, every alternative of
	// it has an index PostgreSQL can combine (a subquery in an OR it could
	// only test row by row, walking the whole account).
	var named []uuid.UUID
	err := s.idb(ctx).NewRaw(`SELECT payment_id FROM psp_notifications WHERE end_to_end_id = ?0 AND payment_id IS NOT NULL
		UNION SELECT payment_id FROM refunds WHERE id = ?0 OR end_to_end_id = ?0 OR return_id = ?0`, term).Scan(ctx, &named)
	if err != nil {
		return nil, fmt.Errorf("store: search by transfer or refund id: %w", err)
	}
	return q.WhereGroup(" AND ", func(w *bun.SelectQuery) *bun.SelectQuery {
		w = w.Where("payment.external_id = ?", term).WhereOr("payment.correlation_id = ?", term)
		if len(named) > 0 {
			w = w.WhereOr("payment.id IN (?)", bun.List(named))
		}
		if utf8.RuneCountInString(term) >= 3 {
			pattern := escapeLike(term)
			w = w.WhereOr("payment.customer IS NOT NULL AND search_fold(payment.customer ->> 'name') LIKE search_fold(?) || '%'", pattern).
				WhereOr("payment.description IS NOT NULL AND search_fold(payment.description) LIKE '%' || search_fold(?) || '%'", pattern)
		}
		return w
	}), nil
}
