package store

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"

	"github.com/uptrace/bun"
)

// RecoveryCodeCount is how many recovery codes a person gets at once.
const RecoveryCodeCount = 10

// ErrNoSecondFactor means the person has not enrolled a TOTP app.
var ErrNoSecondFactor = errors.New("store: no second factor enrolled")

func hashRecoveryCode(code string) []byte {
	sum := sha256.Sum256([]byte(strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(code), "-", ""))))
	return sum[:]
}

// EnableTOTP keeps user id's TOTP secret (sealed) and their new recovery
// codes (hashed), replacing any earlier ones, in the ambient transaction;
// step is the time step of the code that confirmed it (used up).
func (s *Store) EnableTOTP(ctx context.Context, userID, secret string, step int64, recoveryCodes []string) error {
	sealed, err := s.box.Seal(secret, "totp:"+userID)
	if err != nil {
		return fmt.Errorf("store: enable totp: %w", err)
	}
	return s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewRaw(`UPDATE users SET totp_secret_sealed = ?, totp_enabled_at = ?, totp_last_step = ? WHERE id = ?`,
			sealed, s.Now(), step, userID).Exec(ctx); err != nil {
			return fmt.Errorf("store: enable totp: %w", err)
		}
		return s.replaceRecoveryCodes(ctx, tx, userID, recoveryCodes)
	})
}

func (s *Store) replaceRecoveryCodes(ctx context.Context, tx bun.Tx, userID string, codes []string) error {
	if _, err := tx.NewRaw(`DELETE FROM recovery_codes WHERE user_id = ?`, userID).Exec(ctx); err != nil {
		return fmt.Errorf("store: recovery codes: %w", err)
	}
	for _, code := range codes {
		if _, err := tx.NewRaw(`INSERT INTO recovery_codes (user_id, code_hash, created_at) VALUES (?, ?, ?)`,
			userID, hashRecoveryCode(code), s.Now()).Exec(ctx); err != nil {
			return fmt.Errorf("store: recovery codes: %w", err)
		}
	}
	return nil
}

// DisableTOTP forgets user id's TOTP secret and recovery codes.
func (s *Store) DisableTOTP(ctx context.Context, userID string) error {
	return s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewRaw(`UPDATE users SET totp_secret_sealed = NULL, totp_enabled_at = NULL WHERE id = ?`, userID).Exec(ctx); err != nil {
			return fmt.Errorf("store: disable totp: %w", err)
		}
		return s.replaceRecoveryCodes(ctx, tx, userID, nil)
	})
}

// TOTPSecret is user id's TOTP secret, opened (ErrNoSecondFactor: none).
func (s *Store) TOTPSecret(ctx context.Context, userID string) (string, error) {
	var sealed []byte
	err := s.idb(ctx).NewRaw(`SELECT totp_secret_sealed FROM users WHERE id = ? AND totp_enabled_at IS NOT NULL`, userID).Scan(ctx, &sealed)
	if err != nil || sealed == nil {
		if err == nil || errors.Is(translate(err), ErrNotFound) {
			return "", ErrNoSecondFactor
		}
		return "", fmt.Errorf("store: totp secret: %w", err)
	}
	return s.box.Open(sealed, "totp:"+userID)
}

// UseTOTPStep accepts the code of time step `step` for user id only if no
// code of that step or a later one was accepted: a code works once.
func (s *Store) UseTOTPStep(ctx context.Context, userID string, step int64) (bool, error) {
	res, err := s.idb(ctx).NewRaw(`UPDATE users SET totp_last_step = ? WHERE id = ? AND totp_last_step < ?`, step, userID, step).Exec(ctx)
	if err != nil {
		return false, fmt.Errorf("store: totp step: %w", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// UseRecoveryCode uses one of user id's recovery codes, once.
func (s *Store) UseRecoveryCode(ctx context.Context, userID, code string) (bool, error) {
	res, err := s.idb(ctx).NewRaw(`UPDATE recovery_codes SET used_at = ? WHERE user_id = ? AND code_hash = ? AND used_at IS NULL`,
		s.Now(), userID, hashRecoveryCode(code)).Exec(ctx)
	if err != nil {
		return false, fmt.Errorf("store: recovery code: %w", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// RecoveryCodesLeft counts user id's unused recovery codes.
func (s *Store) RecoveryCodesLeft(ctx context.Context, userID string) (int, error) {
	var n int
	err := s.idb(ctx).NewRaw(`SELECT count(*) FROM recovery_codes WHERE user_id = ? AND used_at IS NULL`, userID).Scan(ctx, &n)
	if err != nil {
		return 0, fmt.Errorf("store: recovery codes left: %w", err)
	}
	return n, nil
}
