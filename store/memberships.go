package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
)

// Membership is a person's place in an account: their role there.
type Membership struct {
	AccountID   string    `bun:"account_id"`
	AccountName string    `bun:"account_name"`
	UserID      string    `bun:"user_id"`
	Email       string    `bun:"email"`
	Role        string    `bun:"role"`
	CreatedAt   time.Time `bun:"created_at"`
}

// ErrLastOwner refuses removing or demoting an account's only owner.
var ErrLastOwner = errors.New("store: an account keeps at least one owner")

func (s *Store) addMember(ctx context.Context, db bun.IDB, accountID, userID, role string) error {
	_, err := db.NewRaw(`INSERT INTO memberships (account_id, user_id, role, created_at) VALUES (?, ?, ?, ?)`,
		accountID, userID, role, s.Now()).Exec(ctx)
	if err != nil {
		return fmt.Errorf("store: add member: %w", translate(err))
	}
	return nil
}

// MembershipsOf lists the accounts user id belongs to, by account name.
func (s *Store) MembershipsOf(ctx context.Context, userID string) ([]Membership, error) {
	var out []Membership
	err := s.idb(ctx).NewRaw(`SELECT m.account_id, a.name AS account_name, m.user_id, u.email, m.role, m.created_at
		FROM memberships AS m JOIN accounts AS a ON a.id = m.account_id JOIN users AS u ON u.id = m.user_id
		WHERE m.user_id = ? ORDER BY a.name, m.account_id`, userID).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("store: memberships: %w", err)
	}
	return out, nil
}

// Members lists the people of an account, owners first.
func (s *Store) Members(ctx context.Context, accountID string) ([]Membership, error) {
	var out []Membership
	err := s.idb(ctx).NewRaw(`SELECT m.account_id, a.name AS account_name, m.user_id, u.email, m.role, m.created_at
		FROM memberships AS m JOIN accounts AS a ON a.id = m.account_id JOIN users AS u ON u.id = m.user_id
		WHERE m.account_id = ? ORDER BY array_position(?::text[], m.role), lower(u.email)`,
		accountID, pgdialect.Array(AccountRoles)).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("store: members: %w", err)
	}
	return out, nil
}
