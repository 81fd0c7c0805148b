package store

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"payments/pix"
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
// accents: "joao" finds "João"). A term that is an identifier found names
// exactly its payments; only one that names none is looked for in names
// and descriptions. The merchant's list and support's search both ask it,
// so they find the same things; each lookup has its index.
func (s *Store) wherePaymentMatches(ctx context.Context, q *bun.SelectQuery, term string) (*bun.SelectQuery, error) {
	q, _, err := s.wherePaymentMatchesOr(ctx, q, term, nil, false)
	return q, err
}

// wherePaymentMatchesOr is wherePaymentMatches for q within scope (nil:
// every account's); with asFilter, a term that is no identifier becomes a
// plain filter on name and description, for a query that walks few
// payments anyway, and fuzzy says it was such a term.
func (s *Store) wherePaymentMatchesOr(ctx context.Context, q *bun.SelectQuery, term string, scope *fuzzyScope, asFilter bool) (_ *bun.SelectQuery, fuzzy bool, err error) {
	if utf8.RuneCountInString(term) > MaxSearch {
		return q.Where("false"), false, nil
	}
	var named []uuid.UUID
	switch {
	case scope != nil && scope.resolved:
		named, fuzzy = scope.named, scope.fuzzy
	default:
		named, fuzzy, err = s.paymentsNamed(ctx, term)
		if scope != nil && err == nil {
			scope.resolved, scope.named, scope.fuzzy = true, named, fuzzy
		}
	}
	switch {
	case err != nil:
		return nil, false, err
	case len(named) > 0:
		return q.Where("payment.id IN (?)", bun.List(named)), false, nil
	case !fuzzy || utf8.RuneCountInString(term) < 3:
		return q.Where("false"), false, nil
	}
	pattern := escapeLike(term)
	if asFilter {
		return q.Where(`(payment.customer IS NOT NULL AND search_fold(payment.customer ->> 'name') LIKE search_fold(?0) || '%'
			OR payment.description IS NOT NULL AND search_fold(payment.description) LIKE '%' || search_fold(?0) || '%')`, pattern), true, nil
	}
	// The name's start and the description's words, each by its index and
	// planned apart (materialized): as an OR under ORDER BY id LIMIT,
	// PostgreSQL expected many matches and walked every payment from the
	// newest, seconds for a term that matches none. A word most payments
	// share costs its matches instead (BENCHMARKS.md, "At scale").
	if scope != nil {
		// One account's: the name's start by the account's own index
		// (migration 032), so that a name common on the platform costs the
		// account's matches, not everyone's; asked as the range of names
		// the index holds (the folded term up to its last character's
		// next), which the index answers whole, where LIKE folded every
		// row's name again. The namedLimit newest are kept, as for an
		// identifier's.
		keep, before := namedLimit, (*uuid.UUID)(nil)
		if scope.page > 0 {
			keep, before = scope.page, scope.before
		}
		return q.Where(`payment.id IN (WITH t AS (SELECT search_fold(?0) AS lo), found AS MATERIALIZED (
			SELECT id FROM payments, t WHERE account_id = ?2 AND livemode = ?3 AND customer IS NOT NULL
				AND search_fold(customer ->> 'name') ~>=~ t.lo
				AND search_fold(customer ->> 'name') ~<~ (left(t.lo, -1) || chr(ascii(right(t.lo, 1)) + 1))
			UNION SELECT id FROM payments WHERE description IS NOT NULL AND search_fold(description) LIKE '%' || search_fold(?1) || '%'
				AND account_id = ?2 AND livemode = ?3)
			SELECT id FROM found WHERE ?5::uuid IS NULL OR id < ?5 ORDER BY id DESC LIMIT ?4)`,
			term, pattern, scope.AccountID, scope.Livemode, keep, before), true, nil
	}
	return q.Where(`payment.id IN (WITH found AS MATERIALIZED (
		SELECT id FROM payments WHERE customer IS NOT NULL AND search_fold(customer ->> 'name') LIKE search_fold(?0) || '%'
		UNION SELECT id FROM payments WHERE description IS NOT NULL AND search_fold(description) LIKE '%' || search_fold(?0) || '%')
		SELECT id FROM found)`, pattern), true, nil
}

// fuzzyScope narrows a search by name or description to one account's
// payments. With page set (a list with no other filter), only the page
// past before is needed: the newest page+1 of them are kept, not
// namedLimit, which the list would then look up one by one.
type fuzzyScope struct {
	Scope
	page   int
	before *uuid.UUID
	// resolved: what the term names as an identifier was looked up once
	// (named, fuzzy), for the list's second try.
	resolved bool
	named    []uuid.UUID
	fuzzy    bool
}

// namedLimit bounds the payments one identifier names (a customer's
// e-mail or document across their payments), the newest kept.
const namedLimit = 1000

// paymentsNamed finds the payments term names as an identifier, one
// indexed lookup per kind of identifier it may be, apart: as one OR
// across columns (and subqueries), PostgreSQL could serve none of them
// with its index and walked every payment from the newest down. A term
// that is no identifier found may still name payments by their
// customer's name or description (fuzzy).
func (s *Store) paymentsNamed(ctx context.Context, term string) (named []uuid.UUID, fuzzy bool, err error) {
	// Stored documents all have valid check digits: a term without them
	// names no customer, and may still be an id below.
	document, _, isDocument := pix.NormalizeDocument(term)
	byExternalID := `(SELECT id FROM payments WHERE external_id = ?0)`
	var lookups string
	switch id, isID := ParsePaymentID(term); {
	case isID:
		lookups = `(SELECT id FROM payments WHERE id = ?1) UNION ` + byExternalID
		named, err = s.lookUp(ctx, lookups, term, id)
		return named, false, err
	case strings.Contains(term, "@"):
		lookups = newest(`SELECT id FROM payments WHERE customer IS NOT NULL AND lower(customer ->> 'email') = lower(?0)`) + ` UNION ` + byExternalID
		named, err = s.lookUp(ctx, lookups, term, nil)
		return named, false, err
	case isDocument:
		lookups = newest(`SELECT id FROM payments WHERE customer IS NOT NULL AND customer ->> 'document' = ?1`) + ` UNION ` + byExternalID
		named, err = s.lookUp(ctx, lookups, term, document)
		return named, false, err
	}
	// Its txid, a transfer's endToEndId, a refund's id or a devolução's.
	lookups = byExternalID + ` UNION (SELECT id FROM payments WHERE correlation_id = ?0)
		UNION (SELECT payment_id FROM psp_notifications WHERE end_to_end_id = ?0 AND payment_id IS NOT NULL)
		UNION (SELECT payment_id FROM refunds WHERE id = ?0)
		UNION (SELECT payment_id FROM refunds WHERE end_to_end_id = ?0)
		UNION (SELECT payment_id FROM refunds WHERE return_id = ?0)`
	named, err = s.lookUp(ctx, lookups, term, nil)
	return named, true, err
}

// newest keeps the namedLimit newest payments a lookup finds. The lookup
// is planned on its own (a materialized CTE): under an ORDER BY id LIMIT,
// PostgreSQL, misjudging how many rows a partial expression index holds
// for one value, walked the primary key of every payment instead.
func newest(lookup string) string {
	return `(WITH found AS MATERIALIZED (` + lookup + `) SELECT id FROM found ORDER BY id DESC LIMIT ` + fmt.Sprint(namedLimit) + `)`
}

// lookUp runs lookups with term as ?0 and arg as ?1.
func (s *Store) lookUp(ctx context.Context, lookups, term string, arg any) ([]uuid.UUID, error) {
	var named []uuid.UUID
	if err := s.idb(ctx).NewRaw(lookups, term, arg).Scan(ctx, &named); err != nil {
		return nil, fmt.Errorf("store: payments an identifier names: %w", err)
	}
	return named, nil
}
