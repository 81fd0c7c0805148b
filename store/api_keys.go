package store

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

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
	// Name says what the key is for; CreatedBy who made it (an actor id).
	Name      string `bun:"name"`
	CreatedBy string `bun:"created_by"`
	// Permissions are a restricted key's (rk_); nil: every permission.
	Permissions []string `bun:"permissions,array"`
	// AllowedIPs are the addresses and ranges the key may be used from
	// (nil: anywhere).
	AllowedIPs []string `bun:"allowed_ips,array"`
	// Subaccounts are the platform's subaccounts the key may act for (with
	// Payments-Account) and all it may act on; nil: the platform and every
	// one of its subaccounts.
	Subaccounts []string `bun:"subaccounts,array"`
	// LastUsedAt and LastUsedIP are written in batches (KeyUsage), so they
	// may lag a request by a few seconds.
	LastUsedAt *time.Time `bun:"last_used_at"`
	LastUsedIP *string    `bun:"last_used_ip"`
	// RevokedReason says why a key no one revoked by hand was revoked
	// (KeyRevokedMakerRemoved); nil when revoked by hand or not revoked.
	RevokedReason *string `bun:"revoked_reason"`
	// CreatedByName is who made it as people read it (a person's e-mail,
	// a command), read by APIKeys.
	CreatedByName string `bun:"created_by_name,scanonly"`
	// MakerRole is the role its maker has in the account now, when a
	// person made it (nil: a command made it, or the maker left): read
	// with the key, so that a key is never stronger than its maker.
	MakerRole *string `bun:"maker_role,scanonly"`

	// Account is loaded with the key when authenticating a request.
	Account *Account `bun:"rel:belongs-to,join:account_id=id"`
}

// Restricted says the key holds only its Permissions (an rk_ key).
func (k *APIKey) Restricted() bool { return k.Permissions != nil }

// KeyRevokedMakerRemoved is the reason of a key revoked because the
// person who made it left the account.
const KeyRevokedMakerRemoved = "maker_removed"

// RoleGone is the maker's role of a key whose maker is no longer a member
// of its account: a role that may do nothing.
const RoleGone = "gone"

// MadeByPerson says a person made the key (not an admin command).
func (k *APIKey) MadeByPerson() bool { return strings.HasPrefix(k.CreatedBy, "user:") }

// MakerLimit is the role that bounds what the key may do: its maker's role
// in the account now (RoleGone when they left), or "" for a key made by a
// command, which nothing but its own permissions bounds.
func (k *APIKey) MakerLimit() string {
	switch {
	case !k.MadeByPerson():
		return ""
	case k.MakerRole == nil:
		return RoleGone
	}
	return *k.MakerRole
}

// makerRoleSQL reads the role of a key's maker in its account now.
const makerRoleSQL = `(SELECT m.role FROM memberships AS m
	WHERE m.account_id = api_key.account_id AND 'user:' || m.user_id = api_key.created_by) AS maker_role`

// AllowsIP says whether the key may be used from ip.
func (k *APIKey) AllowsIP(ip string) bool {
	if k.AllowedIPs == nil {
		return true
	}
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return false
	}
	addr = addr.Unmap()
	for _, text := range k.AllowedIPs {
		if p, err := netip.ParsePrefix(text); err == nil && p.Contains(addr) {
			return true
		}
	}
	return false
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

// NewAPIKey is what a key is made with besides its account and mode.
type NewAPIKey struct {
	Name string
	// Permissions make a restricted key (rk_): nil makes a full key (sk_).
	Permissions []string
	// AllowedIPs are CIDR ranges (operations.ParseAllowedIPs).
	AllowedIPs []string
	// Subaccounts limit the key to these subaccounts of its account
	// (checked by the caller); nil: the account and all of them.
	Subaccounts []string
}

// MaxAPIKeyName is the longest name a key may have.
const MaxAPIKeyName = 100

// CreateAPIKey makes a key for the account and returns it with its secret,
// which is not stored and cannot be shown again. An account holding
// MaxActiveAPIKeys unrevoked keys is ErrAPIKeyLimit. ctx's actor is
// recorded as who made it.
func (s *Store) CreateAPIKey(ctx context.Context, accountID string, livemode bool, in NewAPIKey) (*APIKey, string, error) {
	prefix := "sk_"
	if in.Permissions != nil {
		prefix = "rk_"
	}
	secret := prefix + ModeName(livemode) + "_" + pix.RandomBase62(apiKeySecretLength)
	k := &APIKey{
		ID:          ids.New(ids.PrefixAPIKey),
		AccountID:   accountID,
		Livemode:    livemode,
		SecretHash:  HashAPIKey(secret),
		Redacted:    secret[:8] + "…" + secret[len(secret)-4:],
		CreatedAt:   s.Now(),
		Name:        in.Name,
		CreatedBy:   actorOf(ctx),
		Permissions: in.Permissions,
		AllowedIPs:  in.AllowedIPs,
		Subaccounts: in.Subaccounts,
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

// KeyUse is one request's use of a key, for its "last used".
type KeyUse struct {
	At time.Time
	IP string
}

// RecordKeyUses writes the latest use of each key, in one statement: the
// API notes uses in memory and writes them every few seconds, not a write
// per request.
func (s *Store) RecordKeyUses(ctx context.Context, uses map[string]KeyUse) error {
	if len(uses) == 0 {
		return nil
	}
	keys, ats, ips := make([]string, 0, len(uses)), make([]time.Time, 0, len(uses)), make([]*string, 0, len(uses))
	for id, u := range uses {
		keys, ats, ips = append(keys, id), append(ats, u.At), append(ips, inetOf(u.IP))
	}
	_, err := s.idb(ctx).NewRaw(`UPDATE api_keys AS k SET last_used_at = u.at, last_used_ip = u.ip::inet
		FROM unnest(?::text[], ?::timestamptz[], ?::text[]) AS u(id, at, ip)
		WHERE k.id = u.id AND (k.last_used_at IS NULL OR k.last_used_at < u.at)`,
		pgdialect.Array(keys), pgdialect.Array(ats), pgdialect.Array(ips)).Exec(ctx)
	if err != nil {
		return fmt.Errorf("store: record key uses: %w", err)
	}
	return nil
}

// APIKeyBySecret finds the key whose secret hashes to the stored hash, with
// its account, revoked keys included (the caller tells revoked from unknown).
func (s *Store) APIKeyBySecret(ctx context.Context, secret string) (*APIKey, error) {
	k := new(APIKey)
	err := s.idb(ctx).NewSelect().Model(k).ColumnExpr("api_key.*").ColumnExpr(makerRoleSQL).Relation("Account").
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
	err := s.idb(ctx).NewSelect().Model(&keys).ColumnExpr("api_key.*").
		ColumnExpr(`coalesce(u.email, regexp_replace(api_key.created_by, '^admin:', 'payments ')) AS created_by_name`).
		ColumnExpr(makerRoleSQL).
		Join("LEFT JOIN users AS u ON 'user:' || u.id = api_key.created_by").
		Where("api_key.account_id = ?", accountID).Order("api_key.created_at DESC").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: api keys: %w", err)
	}
	return keys, nil
}
