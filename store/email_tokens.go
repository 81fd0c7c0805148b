package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"payments/pix"
	"payments/store/ids"
)

// Kinds of single-use links, and how long each lasts.
const (
	TokenVerifyEmail   = "verify_email"
	TokenResetPassword = "reset_password"
	TokenInvitation    = "invitation"
)

// TokenLifetimes are how long each kind of link may be followed: a reset
// is short (it signs in as the person), an invitation waits for a
// colleague to read their mail.
var TokenLifetimes = map[string]time.Duration{
	TokenVerifyEmail:   48 * time.Hour,
	TokenResetPassword: 30 * time.Minute,
	TokenInvitation:    7 * 24 * time.Hour,
}

// EmailToken is a single-use link sent by e-mail; only its hash is kept.
type EmailToken struct {
	bun.BaseModel `bun:"table:email_tokens"`

	ID        string     `bun:"id,pk"`
	Kind      string     `bun:"kind"`
	TokenHash []byte     `bun:"token_hash"`
	Email     string     `bun:"email"`
	UserID    *string    `bun:"user_id"`
	AccountID *string    `bun:"account_id"`
	Role      *string    `bun:"role"`
	InvitedBy *string    `bun:"invited_by"`
	CreatedAt time.Time  `bun:"created_at"`
	ExpiresAt time.Time  `bun:"expires_at"`
	UsedAt    *time.Time `bun:"used_at"`

	// AccountName and InviterName are read with an invitation.
	AccountName string `bun:"account_name,scanonly"`
	InviterName string `bun:"inviter_name,scanonly"`
}

// tokenLength is the count of random base62 characters of a link's token.
const tokenLength = 43

// CreateEmailToken stores t (its kind, e-mail and, for an invitation, the
// account, role and inviter) and returns the token to put in the link,
// which is not stored.
func (s *Store) CreateEmailToken(ctx context.Context, t *EmailToken) (string, error) {
	token := pix.RandomBase62(tokenLength)
	now := s.Now()
	t.ID, t.TokenHash, t.CreatedAt, t.ExpiresAt = ids.New(ids.PrefixToken), HashAPIKey(token), now, now.Add(TokenLifetimes[t.Kind])
	t.Email = strings.TrimSpace(t.Email)
	if _, err := s.idb(ctx).NewInsert().Model(t).Exec(ctx); err != nil {
		return "", fmt.Errorf("store: create email token: %w", translate(err))
	}
	return token, nil
}

// EmailTokenFor finds the unused, unexpired link of kind with token,
// without using it (an invitation's page shows who invited to what).
func (s *Store) EmailTokenFor(ctx context.Context, kind, token string) (*EmailToken, error) {
	return s.emailToken(ctx, s.idb(ctx), kind, token, false)
}

// UseEmailToken uses the link of kind with token once, in the ambient
// transaction: a second use, an expired or unknown link is ErrTokenInvalid.
func (s *Store) UseEmailToken(ctx context.Context, kind, token string) (*EmailToken, error) {
	t, err := s.emailToken(ctx, s.idb(ctx), kind, token, true)
	if err != nil {
		return nil, err
	}
	now := s.Now()
	if _, err := s.idb(ctx).NewUpdate().Model(t).Set("used_at = ?", now).WherePK().Exec(ctx); err != nil {
		return nil, fmt.Errorf("store: use email token: %w", err)
	}
	t.UsedAt = &now
	return t, nil
}

func (s *Store) emailToken(ctx context.Context, db bun.IDB, kind, token string, lock bool) (*EmailToken, error) {
	t := new(EmailToken)
	q := db.NewSelect().Model(t).ColumnExpr("email_token.*").
		ColumnExpr("coalesce(a.name, '') AS account_name").
		ColumnExpr("coalesce(u.email, '') AS inviter_name").
		Join("LEFT JOIN accounts AS a ON a.id = email_token.account_id").
		Join("LEFT JOIN users AS u ON 'user:' || u.id = email_token.invited_by").
		Where("email_token.kind = ? AND email_token.token_hash = ?", kind, HashAPIKey(token)).
		Where("email_token.used_at IS NULL AND email_token.expires_at > ?", s.Now())
	if lock {
		q = q.For("UPDATE OF email_token")
	}
	if err := q.Scan(ctx); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ErrTokenInvalid
		}
		return nil, fmt.Errorf("store: email token: %w", err)
	}
	return t, nil
}

// PendingInvitations lists the account's invitations not yet accepted nor
// expired, newest first.
func (s *Store) PendingInvitations(ctx context.Context, accountID string) ([]EmailToken, error) {
	var out []EmailToken
	err := s.idb(ctx).NewSelect().Model(&out).
		Where("kind = ? AND account_id = ? AND used_at IS NULL AND expires_at > ?", TokenInvitation, accountID, s.Now()).
		Order("created_at DESC").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: invitations: %w", err)
	}
	return out, nil
}

// RevokeInvitation ends the account's invitation id (its link stops working).
func (s *Store) RevokeInvitation(ctx context.Context, accountID, id string) (*EmailToken, error) {
	t := new(EmailToken)
	err := s.idb(ctx).NewUpdate().Model(t).Set("used_at = ?", s.Now()).
		Where("id = ? AND kind = ? AND account_id = ? AND used_at IS NULL", id, TokenInvitation, accountID).
		Returning("*").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: revoke invitation: %w", translate(err))
	}
	return t, nil
}

// EndTokens ends every unused link of kind for user id (a new reset link
// replaces the previous ones; a reset ends them all).
func (s *Store) EndTokens(ctx context.Context, kind, userID string) error {
	_, err := s.idb(ctx).NewUpdate().Model((*EmailToken)(nil)).Set("used_at = ?", s.Now()).
		Where("kind = ? AND user_id = ? AND used_at IS NULL", kind, userID).Exec(ctx)
	if err != nil {
		return fmt.Errorf("store: end tokens: %w", err)
	}
	return nil
}
