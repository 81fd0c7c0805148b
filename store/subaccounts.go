package store

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"payments/store/ids"
	"payments/versions"
)

// IsSubaccount says the account is a platform's subaccount.
func (a *Account) IsSubaccount() bool { return a.ParentAccountID != nil }

// NewSubaccount is a platform's subaccount as asked for, checked by the
// caller: its name, CPF or CNPJ (compact), e-mail and Pix key.
type NewSubaccount struct {
	Name, Document, Email, PixKey string
}

// ErrNotAPlatform refuses a subaccount of a subaccount: platforms are one
// level deep.
var ErrNotAPlatform = errors.New("store: a subaccount has no subaccounts")

// CreateSubaccount makes platform a subaccount: its pricing is the
// platform's, and its live mode is on when the platform's is.
func (s *Store) CreateSubaccount(ctx context.Context, platform *Account, in NewSubaccount) (*Account, error) {
	if platform.IsSubaccount() {
		return nil, ErrNotAPlatform
	}
	a := &Account{ID: ids.New(ids.PrefixAccount), Name: strings.TrimSpace(in.Name), Email: strings.TrimSpace(in.Email),
		FeeBPS: platform.FeeBPS, FeeFixedCents: platform.FeeFixedCents, TimeZone: platform.TimeZone, CreatedAt: s.Now(),
		Document: &in.Document, PixKey: &in.PixKey, ParentAccountID: &platform.ID, Status: AccountActive,
		PaymentsVersion: versions.API.Current()}
	if platform.LiveEnabledAt != nil {
		a.LiveEnabledAt = &a.CreatedAt
	}
	if _, err := s.idb(ctx).NewInsert().Model(a).Exec(ctx); err != nil {
		return nil, fmt.Errorf("store: create subaccount: %w", translate(err))
	}
	return a, nil
}

// SubaccountOf returns platform's subaccount id (ErrNotFound for any
// other account, the platform's own id included).
func (s *Store) SubaccountOf(ctx context.Context, platformID, id string) (*Account, error) {
	a := new(Account)
	if err := s.idb(ctx).NewSelect().Model(a).Where("id = ? AND parent_account_id = ?", id, platformID).Scan(ctx); err != nil {
		return nil, fmt.Errorf("store: subaccount: %w", translate(err))
	}
	return a, nil
}

// ListSubaccounts returns one page of platform's subaccounts, newest first.
func (s *Store) ListSubaccounts(ctx context.Context, platformID string, limit int, startingAfter string) ([]Account, bool, error) {
	var out []Account
	q := s.idb(ctx).NewSelect().Model(&out).Where("parent_account_id = ?", platformID)
	if startingAfter != "" {
		q = q.Where("id < ?", startingAfter)
	}
	if err := q.Order("id DESC").Limit(int64(limit) + 1).Scan(ctx); err != nil {
		return nil, false, fmt.Errorf("store: list subaccounts: %w", err)
	}
	hasMore := len(out) > limit
	if hasMore {
		out = out[:limit]
	}
	return out, hasMore, nil
}
