package store

import (
	"context"
	"crypto/sha256"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"payments/pix"
	"payments/store/ids"
)

// APIKey is an account's credential for one mode. Only the SHA-256 of the
// secret is kept.
type APIKey struct {
	bun.BaseModel `bun:"table:api_keys"`

	ID         string     `bun:"id,pk"`
	AccountID  string     `bun:"account_id"`
	Livemode   bool       `bun:"livemode"`
	SecretHash []byte     `bun:"secret_hash"`
	Redacted   string     `bun:"redacted"`
	CreatedAt  time.Time  `bun:"created_at"`
	RevokedAt  *time.Time `bun:"revoked_at"`

	// Account is loaded with the key when authenticating a request.
	Account *Account `bun:"rel:belongs-to,join:account_id=id"`
}

// Mode is "live" or "test".
func (k *APIKey) Mode() string { return ModeName(k.Livemode) }

// ModeName names a livemode flag the way keys and the CLI spell it.
func ModeName(livemode bool) string {
	if livemode {
		return "live"
	}
	return "test"
}

// apiKeySecretLength is the count of random base62 characters after the prefix.
const apiKeySecretLength = 32

// HashAPIKey is the lookup hash of an API key secret.
func HashAPIKey(secret string) []byte {
	sum := sha256.Sum256([]byte(secret))
	return sum[:]
}

// MaxActiveAPIKeys is how many keys, of both modes, an account may hold
// unrevoked at once.
const MaxActiveAPIKeys = 20

// ErrAPIKeyLimit refuses a key beyond MaxActiveAPIKeys: revoke one first.
var ErrAPIKeyLimit = fmt.Errorf("store: the account holds %d active API keys, the most it may", MaxActiveAPIKeys)

// CreateAPIKey makes a key for the account and returns it with its secret,
// which is not stored and cannot be shown again. An account holding
// MaxActiveAPIKeys unrevoked keys is ErrAPIKeyLimit.
func (s *Store) CreateAPIKey(ctx context.Context, accountID string, livemode bool) (*APIKey, string, error) {
	secret := "sk_" + ModeName(livemode) + "_" + pix.RandomBase62(apiKeySecretLength)
	k := &APIKey{
		ID:         ids.New(ids.PrefixAPIKey),
		AccountID:  accountID,
		Livemode:   livemode,
		SecretHash: HashAPIKey(secret),
		Redacted:   secret[:8] + "…" + secret[len(secret)-4:],
		CreatedAt:  s.Now(),
	}
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		count := tx.NewSelect().Model((*APIKey)(nil)).Where("account_id = ? AND revoked_at IS NULL", accountID)
		if err := withinAccountCap(ctx, tx, accountID, count, MaxActiveAPIKeys, ErrAPIKeyLimit); err != nil {
			return err
		}
		if _, err := tx.NewInsert().Model(k).Exec(ctx); err != nil {
			return fmt.Errorf("store: create api key: %w", translate(err))
		}
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	return k, secret, nil
}

// APIKeyBySecret finds the key whose secret hashes to the stored hash, with
// its account, revoked keys included (the caller tells revoked from unknown).
func (s *Store) APIKeyBySecret(ctx context.Context, secret string) (*APIKey, error) {
	k := new(APIKey)
	err := s.idb(ctx).NewSelect().Model(k).Relation("Account").
		Where("api_key.secret_hash = ?", HashAPIKey(secret)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: api key: %w", translate(err))
	}
	return k, nil
}

// RevokeAPIKey revokes one of the account's keys. Revoking twice is a no-op.
func (s *Store) RevokeAPIKey(ctx context.Context, accountID, keyID string) (*APIKey, error) {
	k := new(APIKey)
	err := s.idb(ctx).NewUpdate().Model(k).
		Set("revoked_at = coalesce(revoked_at, ?)", s.Now()).
		Where("id = ? AND account_id = ?", keyID, accountID).
		Returning("*").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: revoke api key: %w", translate(err))
	}
	return k, nil
}

// APIKeys lists the account's keys, newest first.
func (s *Store) APIKeys(ctx context.Context, accountID string) ([]APIKey, error) {
	var keys []APIKey
	err := s.idb(ctx).NewSelect().Model(&keys).Where("account_id = ?", accountID).Order("created_at DESC").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: api keys: %w", err)
	}
	return keys, nil
}
