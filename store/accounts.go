package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"payments/store/ids"
	"payments/versions"
)

// Default pricing for new accounts: 0.99% per PIX charge, no fixed part.
const (
	DefaultFeeBPS        = 99
	DefaultFeeFixedCents = 0
)

// Account is a merchant.
type Account struct {
	bun.BaseModel `bun:"table:accounts"`

	ID            string `bun:"id,pk"`
	Name          string `bun:"name"`
	Email         string `bun:"email"`
	FeeBPS        int    `bun:"fee_bps"`
	FeeFixedCents int    `bun:"fee_fixed_cents"`
	// TimeZone is where the dashboard and checkout show the account's times.
	TimeZone  string    `bun:"time_zone"`
	CreatedAt time.Time `bun:"created_at"`
	// Document is the business's CNPJ or the person's CPF (digits), when
	// the account signed up with one.
	Document *string `bun:"document"`
	// LiveEnabledAt is when platform staff activated live mode (nil: the
	// account works in test mode only).
	LiveEnabledAt *time.Time `bun:"live_enabled_at"`
	// ParentAccountID is a subaccount's platform (nil: an account of its
	// own); PixKey where a subaccount's payouts go; Status a subaccount's
	// standing (AccountActive, AccountDisabled).
	ParentAccountID *string `bun:"parent_account_id"`
	PixKey          *string `bun:"pix_key"`
	Status          string  `bun:"status"`
	// PaymentsVersion is the dated API version its integration is pinned
	// to (versions.API): the one its requests are answered in when they
	// send no Payments-Version header.
	PaymentsVersion string `bun:"payments_version"`
}

// LiveEnabled says whether the account may move live money.
func (a *Account) LiveEnabled() bool { return a.LiveEnabledAt != nil }

// An account's statuses: a subaccount a platform disabled takes no
// changes through Payments-Account.
const (
	AccountActive   = "active"
	AccountDisabled = "disabled"
)

// ActivateLive turns the account's live mode on (once: activating again
// keeps the first time) and returns the account.
func (s *Store) ActivateLive(ctx context.Context, accountID string) (*Account, error) {
	a := new(Account)
	err := s.idb(ctx).NewUpdate().Model(a).Set("live_enabled_at = coalesce(live_enabled_at, ?)", s.Now()).
		Where("id = ?", accountID).Returning("*").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: activate live: %w", translate(err))
	}
	// A platform's subaccounts move live money when it does.
	_, err = s.idb(ctx).NewUpdate().Model((*Account)(nil)).Set("live_enabled_at = coalesce(live_enabled_at, ?)", s.Now()).
		Where("parent_account_id = ?", accountID).Exec(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: activate live: subaccounts: %w", err)
	}
	return a, nil
}

// DefaultTimeZone is a new account's: Brasília time.
const DefaultTimeZone = "America/Sao_Paulo"

// ErrUnknownTimeZone means a zone the time zone database does not know.
var ErrUnknownTimeZone = errors.New("store: unknown time zone")

// SetTimeZone sets where the account's times are shown.
func (s *Store) SetTimeZone(ctx context.Context, accountID, zone string) error {
	if _, err := time.LoadLocation(zone); err != nil || zone == "" || zone == "Local" {
		return ErrUnknownTimeZone
	}
	_, err := s.idb(ctx).NewUpdate().Model((*Account)(nil)).Set("time_zone = ?", zone).Where("id = ?", accountID).Exec(ctx)
	if err != nil {
		return fmt.Errorf("store: set time zone: %w", err)
	}
	return nil
}

// Fee is the account's price for a charge of amount cents: basis points
// rounded half up, plus the fixed part, never more than the amount itself.
func (a *Account) Fee(amount int64) int64 {
	fee := (amount*int64(a.FeeBPS)+5000)/10000 + int64(a.FeeFixedCents)
	return min(fee, amount)
}

// NewAccount describes an account to create.
type NewAccount struct {
	Name          string
	Email         string
	FeeBPS        int
	FeeFixedCents int
	// Document is a CNPJ or CPF, digits only (checked by the caller).
	Document string
	// TestModeOnly keeps live mode off until platform staff activate it (a
	// sign-up); an operator's account is live at once.
	TestModeOnly bool
}

// CreateAccount inserts an account. A taken e-mail is ErrConflict.
func (s *Store) CreateAccount(ctx context.Context, in NewAccount) (*Account, error) {
	a := &Account{
		ID:            ids.New(ids.PrefixAccount),
		Name:          strings.TrimSpace(in.Name),
		Email:         strings.TrimSpace(in.Email),
		FeeBPS:        in.FeeBPS,
		FeeFixedCents: in.FeeFixedCents,
		TimeZone:      DefaultTimeZone,
		CreatedAt:     s.Now(),
		Status:        AccountActive,
		// Pinned to the version current when it is made.
		PaymentsVersion: versions.API.Current(),
	}
	if in.Document != "" {
		a.Document = &in.Document
	}
	if !in.TestModeOnly {
		a.LiveEnabledAt = &a.CreatedAt
	}
	if _, err := s.idb(ctx).NewInsert().Model(a).Exec(ctx); err != nil {
		return nil, fmt.Errorf("store: create account: %w", translate(err))
	}
	return a, nil
}

// AccountsAwaitingLive lists accounts whose live mode is off, oldest first.
func (s *Store) AccountsAwaitingLive(ctx context.Context, limit int) ([]Account, error) {
	var out []Account
	err := s.idb(ctx).NewSelect().Model(&out).Where("live_enabled_at IS NULL AND parent_account_id IS NULL").Order("created_at").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: accounts awaiting live: %w", err)
	}
	return out, nil
}

// Account returns the account with id.
func (s *Store) Account(ctx context.Context, id string) (*Account, error) {
	return accountIn(ctx, s.idb(ctx), id)
}

// accountIn reads the account id through db: a transaction's, for a writer
// that holds one (held_conn.go).
func accountIn(ctx context.Context, db bun.IDB, id string) (*Account, error) {
	a := new(Account)
	if err := db.NewSelect().Model(a).Where("id = ?", id).Scan(ctx); err != nil {
		return nil, fmt.Errorf("store: account %q: %w", id, translate(err))
	}
	return a, nil
}

// AccountByEmail returns the account whose e-mail matches, ignoring case.
func (s *Store) AccountByEmail(ctx context.Context, email string) (*Account, error) {
	a := new(Account)
	err := s.idb(ctx).NewSelect().Model(a).Where("lower(email) = lower(?) AND parent_account_id IS NULL", strings.TrimSpace(email)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: account by email: %w", translate(err))
	}
	return a, nil
}

// SetPaymentsVersion pins the account's integration to version (checked
// by the caller) and returns the version it was pinned to before.
func (s *Store) SetPaymentsVersion(ctx context.Context, accountID, version string) (string, error) {
	var before string
	err := s.idb(ctx).NewRaw(`WITH old AS (SELECT payments_version FROM accounts WHERE id = ? FOR UPDATE)
		UPDATE accounts SET payments_version = ? FROM old WHERE accounts.id = ? RETURNING old.payments_version`,
		accountID, version, accountID).Scan(ctx, &before)
	if err != nil {
		return "", fmt.Errorf("store: set payments version: %w", translate(err))
	}
	return before, nil
}
