package store

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bun"

	"payments/store/apimodel"
	"payments/store/internal/pg"
	"payments/store/jsonw"
)

// Split is one part of a charge that goes to another account of the same
// platform: a fixed amount or a percent (in basis points) of what is paid,
// and who bears the fee (FeePayerAccount: the charge's account, the
// default; FeePayerRecipient: this part bears its share).
type Split struct {
	Account     string `json:"account"`
	AmountCents *int64 `json:"amount_cents,omitempty"`
	PercentBPS  *int64 `json:"percent_bps,omitempty"`
	FeePayer    string `json:"fee_payer"`
}

// Who bears a split's part of the fee.
const (
	FeePayerAccount   = "account"
	FeePayerRecipient = "recipient"
)

// FeePayers are a split's fee_payer values.
var FeePayers = []string{FeePayerAccount, FeePayerRecipient}

// MaxSplits bounds a charge's splits.
const MaxSplits = 15

// SplitParts are what each split's account gets of the charge once paid,
// in the splits' order (nil unpaid or unsplit). The rule: a part is its
// fixed amount, or its percent of what was paid, rounded down; a part
// whose recipient bears the fee gives its share of the fee (the fee times
// the part over what was paid, rounded down); parts that together exceed
// the net (a due-date charge paid with a discount) shrink in proportion,
// rounded down. The charge's account keeps the rest of the net, every
// rounding's remainder with it.
func (p *Payment) SplitParts() []int64 {
	parts := p.UnclampedSplitParts()
	if parts == nil {
		return nil
	}
	net := max(p.ReceivedCents()-p.FeeCents, 0)
	var sum int64
	for _, part := range parts {
		sum += part
	}
	if sum > net {
		for i := range parts {
			parts[i] = parts[i] * net / sum
		}
	}
	return parts
}

// UnclampedSplitParts are SplitParts before they shrink to fit the net:
// what the splits ask of what was paid.
func (p *Payment) UnclampedSplitParts() []int64 {
	received := p.ReceivedCents()
	if len(p.Splits) == 0 || p.PaidAt == nil || received <= 0 {
		return nil
	}
	parts := make([]int64, len(p.Splits))
	for i, s := range p.Splits {
		part := int64(0)
		switch {
		case s.AmountCents != nil:
			part = *s.AmountCents
		case s.PercentBPS != nil:
			part = received * *s.PercentBPS / 10_000
		}
		if s.FeePayer == FeePayerRecipient {
			part -= p.FeeCents * part / received
		}
		parts[i] = max(part, 0)
	}
	return parts
}

// splitShares are what each split's account gives back of amount taken
// from the charge (a refund, a lost dispute): its part times amount over
// what was paid, rounded down; the charge's account gives the rest.
func (p *Payment) splitShares(amount int64) []int64 {
	parts := p.SplitParts()
	if parts == nil {
		return nil
	}
	received := p.ReceivedCents()
	shares := make([]int64, len(parts))
	for i, part := range parts {
		shares[i] = amount * part / received
	}
	return shares
}

// splitPostings move amounts between the charge's account and its splits'
// accounts, for sourceID, as entries of kind: each account's amounts[i]
// into its available balance, and their opposite into the charge's
// account's, as one entry. The charge's account's posting comes first.
func splitPostings(p *Payment, sourceID, kind string, at time.Time, amounts []int64) []posting {
	var total int64
	var out []posting
	for i, s := range p.Splits {
		if i >= len(amounts) || amounts[i] == 0 {
			continue
		}
		total += amounts[i]
		out = append(out, posting{scope: Scope{AccountID: s.Account, Livemode: p.Livemode}, sourceID: sourceID, at: at,
			lines: []movement{{BalanceAvailable, kind, amounts[i]}}})
	}
	if total == 0 {
		return nil
	}
	owner := posting{scope: p.Scope(), sourceID: sourceID, at: at, lines: []movement{{BalanceAvailable, kind, -total}}}
	return append([]posting{owner}, out...)
}

// negate is amounts with their signs turned.
func negate(amounts []int64) []int64 {
	out := make([]int64, len(amounts))
	for i, a := range amounts {
		out[i] = -a
	}
	return out
}

// postAll posts each of postings in tx (see post), in the order of their
// accounts' ids as postingStatements orders the balances, so that every
// transaction that moves several accounts' money (a split charge paid,
// refunded, its refund failed, its dispute lost) locks their balance rows
// in one order and none waits on another that waits on it. One account's
// postings keep their order: a covered debit still comes after the credit
// before it. It orders postings in place (every caller builds its list for
// this call).
func (s *Store) postAll(ctx context.Context, tx bun.Tx, postings []posting) error {
	slices.SortStableFunc(postings, func(a, b posting) int { return strings.Compare(a.scope.AccountID, b.scope.AccountID) })
	for _, p := range postings {
		if err := s.post(ctx, tx, p); err != nil {
			return err
		}
	}
	return nil
}

// ErrSplitAccount refuses a split to an account that is not the charge's
// platform or another of its subaccounts (or is disabled); ErrSplitTooLarge
// splits that add up to more than the charge's net.
var (
	ErrSplitAccount  = errors.New("store: a split names an account outside the charge's platform")
	ErrSplitTooLarge = errors.New("store: the splits add up to more than the charge's net")
)

// SplitFamilyTTL is how long the accounts a charge may split to are
// remembered: a subaccount made since is looked up at once (a miss asks
// again); one disabled is refused within this time.
const SplitFamilyTTL = 10 * time.Second

// splitFamilies remembers, per account, the accounts its charges may split
// to, as last read: a marketplace's every charge names the same few.
type splitFamilies struct {
	mu    sync.Mutex
	known map[string]splitFamily
}

type splitFamily struct {
	members map[string]bool
	read    time.Time
}

// SplitFamily returns the accounts a charge of acct may split to: its
// platform and the platform's other active subaccounts, among ids. What it
// read in the last SplitFamilyTTL answers without a query when it holds
// all of ids.
func (s *Store) SplitFamily(ctx context.Context, acct *Account, ids []string) (map[string]bool, error) {
	now := time.Now()
	s.families.mu.Lock()
	f, ok := s.families.known[acct.ID]
	s.families.mu.Unlock()
	if ok && now.Sub(f.read) < SplitFamilyTTL && allIn(ids, f.members) {
		return f.members, nil
	}
	members, err := s.readSplitFamily(ctx, acct, ids)
	if err != nil {
		return nil, err
	}
	if allIn(ids, members) {
		// Added to what is still fresh, which keeps its time: an entry is
		// never older than SplitFamilyTTL.
		s.families.mu.Lock()
		if f, ok := s.families.known[acct.ID]; ok && now.Sub(f.read) < SplitFamilyTTL {
			merged := maps.Clone(f.members)
			maps.Copy(merged, members)
			members = merged
			now = f.read
		}
		s.families.known[acct.ID] = splitFamily{members: members, read: now}
		s.families.mu.Unlock()
	}
	return members, nil
}

// allIn says whether every one of ids is in set.
func allIn(ids []string, set map[string]bool) bool {
	for _, id := range ids {
		if !set[id] {
			return false
		}
	}
	return true
}

// readSplitFamily reads, among ids, the accounts a charge of acct may split to.
func (s *Store) readSplitFamily(ctx context.Context, acct *Account, ids []string) (map[string]bool, error) {
	platform := acct.ID
	if acct.ParentAccountID != nil {
		platform = *acct.ParentAccountID
	}
	var found []string
	err := s.idb(ctx).NewSelect().Model((*Account)(nil)).Column("id").
		Where("id IN (?) AND id <> ? AND status = ? AND (id = ? OR parent_account_id = ?)", bun.List(ids), acct.ID, AccountActive, platform, platform).
		Scan(ctx, &found)
	if err != nil {
		return nil, fmt.Errorf("store: split accounts: %w", err)
	}
	out := map[string]bool{}
	for _, id := range found {
		out[id] = true
	}
	return out, nil
}

// postingStatements are postings' statements for one round trip: every
// entry first, then the balances, in the order of their accounts' ids, so
// that two transactions that move the same accounts' money lock their
// balance rows in one order. None of them may be covered.
func postingStatements(postings []posting) []pg.Statement {
	var entries, balances []pg.Statement
	for _, p := range postings {
		if st := p.statements(); len(st) == 2 {
			entries, balances = append(entries, st[0]), append(balances, st[1])
		}
	}
	slices.SortStableFunc(balances, func(a, b pg.Statement) int { return strings.Compare(a.Args[0].(string), b.Args[0].(string)) })
	return append(entries, balances...)
}

// appendSplitsColumn appends splits as the payments.splits column holds
// them: what json.Marshal writes (a test holds it to that), by hand, on
// every split charge's creation.
func appendSplitsColumn(b []byte, splits []Split) []byte {
	b = append(b, '[')
	for i, s := range splits {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonw.AppendString(append(b, `{"account":`...), s.Account)
		if s.AmountCents != nil {
			b = strconv.AppendInt(append(b, `,"amount_cents":`...), *s.AmountCents, 10)
		}
		if s.PercentBPS != nil {
			b = strconv.AppendInt(append(b, `,"percent_bps":`...), *s.PercentBPS, 10)
		}
		b = append(jsonw.AppendString(append(b, `,"fee_payer":`...), s.FeePayer), '}')
	}
	return append(b, ']')
}

// appendAPISplits appends splits as the API shows them: what json.Marshal
// writes of them (a test holds it to that).
func appendAPISplits(b []byte, splits []apimodel.Split) []byte {
	b = append(b, '[')
	for i, s := range splits {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonw.AppendString(append(b, `{"account":`...), s.Account)
		b = append(b, `,"amount_cents":`...)
		b = appendIntOrNull(b, s.AmountCents)
		b = append(b, `,"percent":`...)
		if s.Percent == nil {
			b = append(b, "null"...)
		} else {
			b = append(b, *s.Percent...)
		}
		b = jsonw.AppendString(append(b, `,"fee_payer":`...), s.FeePayer)
		b = append(appendIntOrNull(append(b, `,"net_cents":`...), s.NetCents), '}')
	}
	return append(b, ']')
}

func appendIntOrNull(b []byte, v *int64) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, *v, 10)
}

// SplitNet is what split charges moved into scope's money in [from, to):
// the parts it got and gave back as a recipient, less those it passed on
// and got back as a charge's account (negative for a platform that passes
// more on than it gets).
func (s *Store) SplitNet(ctx context.Context, scope Scope, from, to time.Time) (int64, error) {
	var net int64
	err := s.idb(ctx).NewRaw(`SELECT coalesce(sum(amount_cents), 0) FROM ledger_entries
		WHERE account_id = ? AND livemode = ? AND type IN ('split', 'split_return', 'split_return_reversal')
			AND created_at >= ? AND created_at < ?`, scope.AccountID, scope.Livemode, from, to).Scan(ctx, &net)
	if err != nil {
		return 0, fmt.Errorf("store: split net: %w", err)
	}
	return net, nil
}
