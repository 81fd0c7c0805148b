package store

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bun"
	"golang.org/x/crypto/argon2"

	"payments/store/ids"
)

// Roles of people: in an account (a membership's), or the platform's
// staff (support), who read every account and change none.
const (
	RoleOwner     = "owner"
	RoleAdmin     = "admin"
	RoleDeveloper = "developer"
	RoleFinance   = "finance"
	RoleViewer    = "viewer"
	RoleSupport   = "support"
)

// AccountRoles are the roles of a membership, most powerful first.
var AccountRoles = []string{RoleOwner, RoleAdmin, RoleDeveloper, RoleFinance, RoleViewer}

// userMember is users.role of everyone who is not platform staff.
const userMember = "member"

// User is a dashboard login.
type User struct {
	bun.BaseModel `bun:"table:users,alias:u"`

	ID           string  `bun:"id,pk"`
	AccountID    *string `bun:"account_id"`
	Email        string  `bun:"email"`
	PasswordHash string  `bun:"password_hash"`
	Role         string  `bun:"role"`
	// Locale is the language the dashboard speaks to the user (pt-BR, en).
	Locale string `bun:"locale"`
	// SessionEpoch moves on at every password change; sessions carry the
	// epoch they were opened in.
	SessionEpoch int       `bun:"session_epoch"`
	CreatedAt    time.Time `bun:"created_at"`
	// Name is how the person is called; EmailVerifiedAt when they followed
	// the verification link.
	Name            string     `bun:"name"`
	EmailVerifiedAt *time.Time `bun:"email_verified_at"`
	// TOTPEnabledAt is when they enrolled a TOTP app; Passkeys how many
	// passkeys they hold (read with the user).
	TOTPEnabledAt *time.Time `bun:"totp_enabled_at"`
	Passkeys      int        `bun:"passkeys,scanonly"`
	// TimeZone is the user's account's zone (support staff: none), read
	// with the user by UserByID.
	TimeZone string `bun:"time_zone,scanonly"`
	// Subaccount is the name of the account UserInAccount read them in
	// when it is a platform's subaccount ("": it is not); PlatformMember
	// says they are a member of that platform too, whose id is PlatformID.
	Subaccount     string  `bun:"subaccount,scanonly"`
	PlatformID     *string `bun:"platform_id,scanonly"`
	PlatformMember bool    `bun:"platform_member,scanonly"`
}

// CreateUser stores a user an operator makes (the admin commands, the
// demo), with an argon2id hash of password, their e-mail taken as
// confirmed on the operator's word. With an accountID the user is a member
// of that account in role (RoleOwner ...); without, role must be
// RoleSupport: platform staff.
func (s *Store) CreateUser(ctx context.Context, email, password, role, accountID string) (*User, error) {
	return s.CreatePerson(ctx, NewPerson{Email: email, Password: password, Role: role, AccountID: accountID, Verified: true})
}

// NewPerson is a user to create: see CreateUser.
type NewPerson struct {
	Email, Password, Name, Role, AccountID string
	// Locale is the language they read (LocalePT when empty).
	Locale string
	// Verified says their e-mail is proved already (they followed an
	// invitation sent to it).
	Verified bool
}

// CreatePerson is CreateUser with a name, a language and whether the
// e-mail is proved.
func (s *Store) CreatePerson(ctx context.Context, in NewPerson) (*User, error) {
	email, password, role, accountID := in.Email, in.Password, in.Role, in.AccountID
	if err := CheckPassword(password, email, in.Name); err != nil {
		return nil, err
	}
	u := &User{
		ID:           ids.New(ids.PrefixUser),
		Email:        strings.TrimSpace(email),
		PasswordHash: s.HashPassword(password),
		Role:         role,
		Locale:       cmp.Or(in.Locale, LocalePT),
		CreatedAt:    s.Now(),
		Name:         strings.TrimSpace(in.Name),
	}
	if in.Verified {
		u.EmailVerifiedAt = &u.CreatedAt
	}
	stored := userMember
	switch {
	case role == RoleSupport && accountID == "":
		stored = RoleSupport
	case accountID != "" && slices.Contains(AccountRoles, role):
		u.AccountID = &accountID
	default:
		return nil, fmt.Errorf("store: create user: %w", ErrUnknownRole)
	}
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewRaw(`INSERT INTO users (id, account_id, email, password_hash, role, locale, session_epoch, created_at, name, email_verified_at)
			VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?)`, u.ID, u.AccountID, u.Email, u.PasswordHash, stored, u.Locale, u.CreatedAt,
			u.Name, u.EmailVerifiedAt).Exec(ctx)
		if err != nil {
			return fmt.Errorf("store: create user: %w", translate(err))
		}
		if accountID != "" {
			return s.addMember(ctx, tx, accountID, u.ID, role)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}

// ErrUnknownRole means a role that is none of AccountRoles (or support
// staff given an account).
var ErrUnknownRole = errors.New("store: unknown role")

// SetPassword replaces the password of the user with that e-mail.
func (s *Store) SetPassword(ctx context.Context, email, password string) error {
	if err := CheckPassword(password, email); err != nil {
		return err
	}
	res, err := s.idb(ctx).NewUpdate().Model((*User)(nil)).
		Set("password_hash = ?", s.HashPassword(password)).
		Set("session_epoch = session_epoch + 1").
		Where("lower(email) = lower(?)", strings.TrimSpace(email)).Exec(ctx)
	if err != nil {
		return fmt.Errorf("store: set password: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("store: set password: %w", ErrNotFound)
	}
	return nil
}

// ResetPassword sets user id's password and ends every session of theirs
// (a password reset: whoever had their sessions is out).
func (s *Store) ResetPassword(ctx context.Context, id, password string) error {
	u, err := s.UserByID(ctx, id)
	if err != nil {
		return err
	}
	if err := CheckPassword(password, u.Email, u.Name); err != nil {
		return err
	}
	_, err = s.idb(ctx).NewRaw(`UPDATE users SET password_hash = ?, session_epoch = session_epoch + 1 WHERE id = ?`,
		s.HashPassword(password), id).Exec(ctx)
	if err != nil {
		return fmt.Errorf("store: reset password: %w", err)
	}
	return nil
}

// MarkEmailVerified records that user id followed their verification link.
func (s *Store) MarkEmailVerified(ctx context.Context, id string) error {
	_, err := s.idb(ctx).NewRaw(`UPDATE users SET email_verified_at = coalesce(email_verified_at, ?) WHERE id = ?`, s.Now(), id).Exec(ctx)
	if err != nil {
		return fmt.Errorf("store: verify email: %w", err)
	}
	return nil
}

// PasswordHashing is the argon2id cost of the password hashes a store
// makes; a hash carries its own, so a check costs what its hash was made
// with.
type PasswordHashing struct {
	MemoryKiB uint32
	Time      uint32
	Threads   uint8
}

// The service's argon2id cost, RFC 9106's second recommended option
// (memory-constrained), and the least a store accepts, OWASP's first
// argon2id configuration. The web tests hash at the least: under the race
// detector a hash at the service's cost took 0.4 s, and the suite a third
// longer (BENCHMARKS.md, "The web tests' passwords").
const (
	defaultArgonMemoryKiB, defaultArgonTime, defaultArgonThreads = 64 * 1024, 3, 2
	minimumArgonMemoryKiB, minimumArgonTime, minimumArgonThreads = 19 * 1024, 2, 1
	argonKeyLen                                                  = 32
)

// DefaultPasswordHashing is what the service hashes with.
func DefaultPasswordHashing() PasswordHashing {
	return PasswordHashing{MemoryKiB: defaultArgonMemoryKiB, Time: defaultArgonTime, Threads: defaultArgonThreads}
}

// MinimumPasswordHashing is the least a store accepts (19 MiB, two passes,
// one lane).
func MinimumPasswordHashing() PasswordHashing {
	return PasswordHashing{MemoryKiB: minimumArgonMemoryKiB, Time: minimumArgonTime, Threads: minimumArgonThreads}
}

// atLeastMinimum reports whether h costs no less than MinimumPasswordHashing
// in each of its terms.
func (h PasswordHashing) atLeastMinimum() bool {
	m := MinimumPasswordHashing()
	return h.MemoryKiB >= m.MemoryKiB && h.Time >= m.Time && h.Threads >= m.Threads
}

// decoyHash is a hash of no one's password, made on first use.
type decoyHash struct {
	once sync.Once
	hash string
}

// DecoyPasswordHash is a hash to check a password against when the e-mail
// has no user: the same argon2id work as a real check, so the time a
// sign-in takes does not tell whether an account exists.
func (s *Store) DecoyPasswordHash() string {
	s.decoy.once.Do(func() { s.decoy.hash = s.HashPassword(ids.New(ids.PrefixUser)) })
	return s.decoy.hash
}

// HashPassword returns an argon2id hash of password, at the store's cost.
func (s *Store) HashPassword(password string) string { return s.hashing.Hash(password) }

// Hash returns an argon2id hash of password in the PHC string format.
func (h PasswordHashing) Hash(password string) string {
	salt := make([]byte, 16)
	_, _ = rand.Read(salt)
	key := argon2.IDKey([]byte(password), salt, h.Time, h.MemoryKiB, h.Threads, argonKeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, h.MemoryKiB, h.Time, h.Threads, b64.EncodeToString(salt), b64.EncodeToString(key))
}

var errBadHash = errors.New("store: malformed password hash")

// VerifyPassword reports whether password matches a PasswordHashing hash, in
// constant time with respect to the key.
func VerifyPassword(hash, password string) (bool, error) {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false, errBadHash
	}
	var version int
	var memory, iterations uint32
	var threads uint8
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, errBadHash
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &memory, &iterations, &threads); err != nil {
		return false, errBadHash
	}
	b64 := base64.RawStdEncoding
	salt, err := b64.DecodeString(parts[4])
	if err != nil {
		return false, errBadHash
	}
	want, err := b64.DecodeString(parts[5])
	if err != nil {
		return false, errBadHash
	}
	got := argon2.IDKey([]byte(password), salt, iterations, memory, threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

// UserByEmail finds a user by e-mail, ignoring case, as a member of the
// account they sign in to first.
func (s *Store) UserByEmail(ctx context.Context, email string) (*User, error) {
	var id string
	err := s.idb(ctx).NewSelect().Model((*User)(nil)).Column("id").
		Where("lower(email) = lower(?)", strings.TrimSpace(email)).Scan(ctx, &id)
	if err != nil {
		return nil, fmt.Errorf("store: user by email: %w", translate(err))
	}
	return s.UserInAccount(ctx, id, "")
}

// UserByID finds a user by id as a member of the account they sign in to
// first (UserInAccount).
func (s *Store) UserByID(ctx context.Context, id string) (*User, error) {
	return s.UserInAccount(ctx, id, "")
}

// UserInAccount finds user id as a member of accountID ("": the account
// they sign in to first): AccountID and Role are that membership's, with
// the account's time zone. Platform staff have no account and RoleSupport.
// A member without that membership (removed from it) has neither: nil
// AccountID, empty Role.
func (s *Store) UserInAccount(ctx context.Context, id, accountID string) (*User, error) {
	u := new(User)
	err := s.idb(ctx).NewRaw(`SELECT u.id, u.email, u.password_hash, u.locale, u.session_epoch, u.created_at, u.name, u.email_verified_at,
			u.totp_enabled_at, (SELECT count(*) FROM passkeys AS pk WHERE pk.user_id = u.id) AS passkeys,
			CASE WHEN m.user_id IS NOT NULL THEN a.id END AS account_id,
			CASE WHEN u.role = 'support' THEN 'support' ELSE coalesce(m.role, '') END AS role,
			CASE WHEN m.user_id IS NOT NULL THEN a.time_zone ELSE '' END AS time_zone,
			CASE WHEN m.user_id IS NOT NULL AND a.parent_account_id IS NOT NULL THEN a.name ELSE '' END AS subaccount,
			CASE WHEN m.user_id IS NOT NULL THEN a.parent_account_id END AS platform_id,
			m.user_id IS NOT NULL AND EXISTS (SELECT 1 FROM memberships AS pm
				WHERE u.role = 'member' AND pm.user_id = u.id AND pm.account_id = a.parent_account_id) AS platform_member
		FROM users AS u
		LEFT JOIN accounts AS a ON a.id = coalesce(nullif(?, ''), u.account_id)
		-- A member of the account, or of its platform (who acts in any of
		-- its subaccounts with their platform's role); their own membership
		-- of a subaccount first.
		LEFT JOIN LATERAL (SELECT m.user_id, m.role FROM memberships AS m
			WHERE u.role = 'member' AND m.user_id = u.id AND m.account_id IN (a.id, a.parent_account_id)
			ORDER BY m.account_id = a.id DESC LIMIT 1) AS m ON true
		WHERE u.id = ?`, accountID, id).Scan(ctx, u)
	if err != nil {
		return nil, fmt.Errorf("store: user: %w", translate(err))
	}
	return u, nil
}

// HasSecondFactor says whether they enrolled a TOTP app or a passkey.
func (u *User) HasSecondFactor() bool { return u.TOTPEnabledAt != nil || u.Passkeys > 0 }

// Languages a user may choose for the dashboard.
const (
	LocalePT = "pt-BR"
	LocaleEN = "en"
)

// ErrUnknownLocale means a language the dashboard does not speak.
var ErrUnknownLocale = errors.New("store: unknown locale")

// SetLocale sets the language the dashboard speaks to user id.
func (s *Store) SetLocale(ctx context.Context, id, locale string) error {
	if locale != LocalePT && locale != LocaleEN {
		return ErrUnknownLocale
	}
	_, err := s.idb(ctx).NewUpdate().Model((*User)(nil)).Set("locale = ?", locale).Where("id = ?", id).Exec(ctx)
	if err != nil {
		return fmt.Errorf("store: set locale: %w", err)
	}
	return nil
}
