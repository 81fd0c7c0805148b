package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
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

// AddMember makes user id a member of the account in role, in the ambient
// transaction; a member already is ErrConflict.
func (s *Store) AddMember(ctx context.Context, accountID, userID, role string) error {
	if !slices.Contains(AccountRoles, role) {
		return ErrUnknownRole
	}
	return s.addMember(ctx, s.idb(ctx), accountID, userID, role)
}

// SetMemberRole changes a member's role and ends their sessions (the new
// role holds from their next request); the account's last owner keeps
// the role (ErrLastOwner). It returns the role they had.
func (s *Store) SetMemberRole(ctx context.Context, accountID, userID, role string) (before string, err error) {
	if !slices.Contains(AccountRoles, role) {
		return "", ErrUnknownRole
	}
	err = s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if before, err = s.lockMember(ctx, tx, accountID, userID); err != nil {
			return err
		}
		if before == RoleOwner && role != RoleOwner {
			if err := s.keepAnOwner(ctx, tx, accountID, userID); err != nil {
				return err
			}
		}
		if _, err := tx.NewRaw(`UPDATE memberships SET role = ? WHERE account_id = ? AND user_id = ?`, role, accountID, userID).Exec(ctx); err != nil {
			return fmt.Errorf("store: set member role: %w", err)
		}
		return s.endSessions(ctx, tx, userID)
	})
	return before, err
}

// RemoveMember takes user id out of the account, ends their sessions and
// revokes the account's keys they made (KeyRevokedMakerRemoved); the
// account's last owner stays (ErrLastOwner). It returns the role they had
// and the keys it revoked.
func (s *Store) RemoveMember(ctx context.Context, accountID, userID string) (before string, revoked []RevokedKey, err error) {
	err = s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if before, err = s.lockMember(ctx, tx, accountID, userID); err != nil {
			return err
		}
		if before == RoleOwner {
			if err := s.keepAnOwner(ctx, tx, accountID, userID); err != nil {
				return err
			}
		}
		if _, err := tx.NewRaw(`DELETE FROM memberships WHERE account_id = ? AND user_id = ?`, accountID, userID).Exec(ctx); err != nil {
			return fmt.Errorf("store: remove member: %w", err)
		}
		err := tx.NewRaw(`UPDATE api_keys SET revoked_at = ?, revoked_reason = ?
			WHERE account_id = ? AND created_by = ? AND revoked_at IS NULL RETURNING id, livemode`,
			s.Now(), KeyRevokedMakerRemoved, accountID, "user:"+userID).Scan(ctx, &revoked)
		if err != nil {
			return fmt.Errorf("store: revoke the member's keys: %w", err)
		}
		// Their first account is another of theirs, if any.
		if _, err := tx.NewRaw(`UPDATE users SET account_id = (SELECT account_id FROM memberships WHERE user_id = ? ORDER BY created_at LIMIT 1)
			WHERE id = ? AND account_id = ?`, userID, userID, accountID).Exec(ctx); err != nil {
			return fmt.Errorf("store: remove member: %w", err)
		}
		return s.endSessions(ctx, tx, userID)
	})
	return before, revoked, err
}

// RevokedKey is a key a change revoked.
type RevokedKey struct {
	ID       string `bun:"id"`
	Livemode bool   `bun:"livemode"`
}

// lockMember locks the account row (changes of one team queue there) and
// returns the member's role; none is ErrNotFound.
func (s *Store) lockMember(ctx context.Context, tx bun.Tx, accountID, userID string) (string, error) {
	if _, err := tx.NewRaw("SELECT 1 FROM accounts WHERE id = ? FOR UPDATE", accountID).Exec(ctx); err != nil {
		return "", fmt.Errorf("store: lock account: %w", err)
	}
	var role string
	err := tx.NewRaw("SELECT role FROM memberships WHERE account_id = ? AND user_id = ?", accountID, userID).Scan(ctx, &role)
	if err != nil {
		return "", fmt.Errorf("store: member: %w", translate(err))
	}
	return role, nil
}

func (s *Store) keepAnOwner(ctx context.Context, tx bun.Tx, accountID, userID string) error {
	var others int
	err := tx.NewRaw("SELECT count(*) FROM memberships WHERE account_id = ? AND role = 'owner' AND user_id <> ?", accountID, userID).Scan(ctx, &others)
	if err != nil {
		return fmt.Errorf("store: owners: %w", err)
	}
	if others == 0 {
		return ErrLastOwner
	}
	return nil
}

// endSessions moves the user's session epoch on: every session of theirs
// ends at its next request.
func (s *Store) endSessions(ctx context.Context, db bun.IDB, userID string) error {
	if _, err := db.NewRaw("UPDATE users SET session_epoch = session_epoch + 1 WHERE id = ?", userID).Exec(ctx); err != nil {
		return fmt.Errorf("store: end sessions: %w", err)
	}
	return nil
}

// EndSessions ends every session of user id (a password reset).
func (s *Store) EndSessions(ctx context.Context, userID string) error {
	return s.endSessions(ctx, s.idb(ctx), userID)
}
