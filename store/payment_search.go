package store

import (
	"strings"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"payments/store/ids"
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
func wherePaymentMatches(q *bun.SelectQuery, term string) *bun.SelectQuery {
	digits := strings.Map(func(r rune) rune {
		if strings.ContainsRune(".-/ ", r) {
			return -1
		}
		return r
	}, term)
	switch id, isID := ParsePaymentID(term); {
	case utf8.RuneCountInString(term) > MaxSearch:
		return q.Where("false")
	case isID:
		return q.Where("(payment.id = ? OR payment.external_id = ?)", id, term)
	case strings.Contains(term, "@"):
		return q.Where("(payment.customer IS NOT NULL AND lower(payment.customer ->> 'email') = lower(?) OR payment.external_id = ?)", term, term)
	case (len(digits) == 11 || len(digits) == 14) && strings.Trim(digits, "0123456789") == "":
		return q.Where("(payment.customer IS NOT NULL AND payment.customer ->> 'document' = ? OR payment.external_id = ?)", digits, term)
	case strings.HasPrefix(term, ids.PrefixRefund+"_"):
		return q.Where("(payment.id IN (SELECT payment_id FROM refunds WHERE id = ?) OR payment.external_id = ?)", term, term)
	}
	return q.WhereGroup(" AND ", func(w *bun.SelectQuery) *bun.SelectQuery {
		w = w.Where("payment.external_id = ?", term).WhereOr("payment.correlation_id = ?", term).
			WhereOr("payment.id IN (SELECT payment_id FROM psp_notifications WHERE end_to_end_id = ? AND payment_id IS NOT NULL)", term).
			WhereOr("payment.id IN (SELECT payment_id FROM refunds WHERE end_to_end_id = ? OR return_id = ?)", term, term)
		if utf8.RuneCountInString(term) >= 3 {
			pattern := escapeLike(term)
			w = w.WhereOr("payment.customer IS NOT NULL AND search_fold(payment.customer ->> 'name') LIKE search_fold(?) || '%'", pattern).
				WhereOr("payment.description IS NOT NULL AND search_fold(payment.description) LIKE '%' || search_fold(?) || '%'", pattern)
		}
		return w
	})
}
