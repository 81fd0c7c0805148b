package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// Passkey is a person's WebAuthn credential: its public key and counters
// (Credential, the library's record as JSON), never a secret.
type Passkey struct {
	ID         []byte          `bun:"id"`
	UserID     string          `bun:"user_id"`
	Name       string          `bun:"name"`
	Credential json.RawMessage `bun:"credential"`
	CreatedAt  time.Time       `bun:"created_at"`
	LastUsedAt *time.Time      `bun:"last_used_at"`
}

// AddPasskey keeps user id's new credential.
func (s *Store) AddPasskey(ctx context.Context, userID string, id []byte, name string, credential json.RawMessage) error {
	_, err := s.idb(ctx).NewRaw(`INSERT INTO passkeys (id, user_id, name, credential, created_at) VALUES (?, ?, ?, ?, ?)`,
		id, userID, name, string(credential), s.Now()).Exec(ctx)
	if err != nil {
		return fmt.Errorf("store: add passkey: %w", translate(err))
	}
	return nil
}

// Passkeys lists user id's passkeys, oldest first.
func (s *Store) Passkeys(ctx context.Context, userID string) ([]Passkey, error) {
	var out []Passkey
	err := s.idb(ctx).NewRaw(`SELECT id, user_id, name, credential, created_at, last_used_at FROM passkeys WHERE user_id = ? ORDER BY created_at`,
		userID).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("store: passkeys: %w", err)
	}
	return out, nil
}

// UsePasskey records a sign-in with the passkey id of user id: its
// credential as it now is (the authenticator's counter moved on).
func (s *Store) UsePasskey(ctx context.Context, userID string, id []byte, credential json.RawMessage) error {
	res, err := s.idb(ctx).NewRaw(`UPDATE passkeys SET credential = ?, last_used_at = ? WHERE id = ? AND user_id = ?`,
		string(credential), s.Now(), id, userID).Exec(ctx)
	if err != nil {
		return fmt.Errorf("store: use passkey: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("store: use passkey: %w", ErrNotFound)
	}
	return nil
}

// RemovePasskey forgets one of user id's passkeys.
func (s *Store) RemovePasskey(ctx context.Context, userID string, id []byte) error {
	res, err := s.idb(ctx).NewRaw(`DELETE FROM passkeys WHERE id = ? AND user_id = ?`, id, userID).Exec(ctx)
	if err != nil {
		return fmt.Errorf("store: remove passkey: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("store: remove passkey: %w", ErrNotFound)
	}
	return nil
}
