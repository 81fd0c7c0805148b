package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"payments/store/ids"
)

// MaxWebhooksPerAccount is the cap across both modes (seed, section 8).
const MaxWebhooksPerAccount = 20

// A webhook's rules (seed, section 2.3).
const (
	MaxWebhookName     = 120
	DefaultWebhookName = "Webhook"
	MaxWebhookURL      = 2048
	MinCustomSecret    = 16
	MaxCustomSecret    = 128
)

// APIVersions are the envelope versions a webhook receives: v2
// (recommended, the default) or v1 (legacy, flat).
var APIVersions = []string{"v2", "v1"}

// Errors of a custom secret, for the API's and the dashboard's messages.
var (
	ErrSecretLength     = fmt.Errorf("store: a custom secret must be %d to %d characters", MinCustomSecret, MaxCustomSecret)
	ErrSecretCharacters = errors.New("store: a custom secret may only contain printable ASCII characters without spaces")
	// ErrSecretReserved: whsk_ begins ed25519 signing keys, which the
	// service makes itself (a secret of that form would sign as one).
	ErrSecretReserved = errors.New("store: a custom secret may not begin with whsk_, the form of ed25519 signing keys")
)

// CheckCustomSecret checks a secret chosen by the user; empty means
// "generate one".
func CheckCustomSecret(secret string) error {
	if secret == "" {
		return nil
	}
	if len(secret) < MinCustomSecret || len(secret) > MaxCustomSecret {
		return ErrSecretLength
	}
	for _, r := range secret {
		if r < 0x21 || r > 0x7e {
			return ErrSecretCharacters
		}
	}
	if strings.HasPrefix(secret, "whsk_") {
		return ErrSecretReserved
	}
	return nil
}

// MaxRateLimit is the highest rate limit a webhook takes, deliveries per
// second (the column's CHECK says the same).
const MaxRateLimit = 1000

// Signature algorithms a webhook signs with: an HMAC shared secret (the
// seed's X-Service-Signature and Standard Webhooks' v1) or an ed25519
// signing key (Standard Webhooks' v1a; receivers hold only its public key).
const (
	SignatureHMAC    = "hmac-sha256"
	SignatureEd25519 = "ed25519"
)

// SignatureAlgorithms lists them, the default first.
var SignatureAlgorithms = []string{SignatureHMAC, SignatureEd25519}

// SigningSecret is what a webhook signs with from now on: an HMAC secret,
// or an ed25519 signing key (whsk_...) with its public key (whpk_...).
type SigningSecret struct {
	Algorithm string
	Secret    string
	PublicKey string
}

// SecretRotationOverlap is how long the previous secret keeps signing.
const SecretRotationOverlap = 24 * time.Hour

// Reasons a webhook is disabled.
const (
	DisabledManual       = "manual"
	DisabledEndpointGone = "endpoint_gone"
	DisabledFailing      = "failing"
)

// DisabledReasons lists every reason a webhook is disabled.
var DisabledReasons = []string{DisabledManual, DisabledEndpointGone, DisabledFailing}

// ErrWebhookLimit means the account already has MaxWebhooksPerAccount webhooks.
var ErrWebhookLimit = errors.New("store: webhook limit reached")

// Webhook is an endpoint that receives signed events.
type Webhook struct {
	bun.BaseModel `bun:"table:webhooks"`

	ID                   string   `bun:"id,pk"`
	AccountID            string   `bun:"account_id"`
	Livemode             bool     `bun:"livemode"`
	Name                 string   `bun:"name"`
	URL                  string   `bun:"url"`
	APIVersion           string   `bun:"api_version"`
	Events               []string `bun:"events,array"`
	Enabled              bool     `bun:"enabled"`
	DisabledReason       *string  `bun:"disabled_reason"`
	SecretSealed         []byte   `bun:"secret_sealed"`
	SecretHint           string   `bun:"secret_hint"`
	PreviousSecretSealed []byte   `bun:"previous_secret_sealed"`
	// SignatureAlgorithm is SignatureHMAC or SignatureEd25519; PublicKey
	// (whpk_...) is set with the latter.
	SignatureAlgorithm      string     `bun:"signature_algorithm"`
	PublicKey               *string    `bun:"public_key"`
	PreviousSecretExpiresAt *time.Time `bun:"previous_secret_expires_at"`
	FailingSince            *time.Time `bun:"failing_since"`
	FailuresSince           int        `bun:"failures_since"`
	// RateLimit caps deliveries per second (nil: none); the claim keeps
	// RateClaims, the times of its latest claims, to honour it.
	RateLimit  *int        `bun:"rate_limit"`
	RateClaims []time.Time `bun:"rate_claims,array,scanonly"`
	// PausedUntil is when a receiver's Retry-After (on a 429 or 503) lets
	// its deliveries go again; the dispatcher alone writes it.
	PausedUntil *time.Time `bun:"paused_until"`
	// Ordered holds each object's deliveries to the order they were queued.
	Ordered bool `bun:"ordered"`
	// ForwardTrace sends each attempt's W3C traceparent and tracestate
	// (migration 055): the receiver's trace goes on from the request that
	// made the event.
	ForwardTrace bool `bun:"forward_trace"`
	// PaymentsVersion is the dated API version its events are rendered in
	// (versions.API), sent as each attempt's Payments-Version.
	PaymentsVersion string `bun:"payments_version"`
	// Filter is its payload filter, a CEL expression (store/eventfilter;
	// migration 057): it receives only the events of its types the
	// filter passes (nil: all of them).
	Filter *string `bun:"filter"`
	// SlowSince is when its attempts became slow (the slow lane, see
	// ClaimParams); nil while it answers fast. The dispatcher alone writes it.
	SlowSince *time.Time `bun:"slow_since"`
	// Mutual TLS (migration 039, WebhookMTLS): the client certificate
	// presented, its sealed key, what is shown of it, and the pinned CAs.
	MTLSCertificate         *string    `bun:"mtls_certificate"`
	MTLSKeySealed           []byte     `bun:"mtls_key_sealed"`
	MTLSSubject             *string    `bun:"mtls_subject"`
	MTLSIssuer              *string    `bun:"mtls_issuer"`
	MTLSFingerprint         *string    `bun:"mtls_fingerprint"`
	MTLSExpiresAt           *time.Time `bun:"mtls_expires_at"`
	MTLSExpiryNoticedAt     *time.Time `bun:"mtls_expiry_noticed_at"`
	MTLSServerCA            *string    `bun:"mtls_server_ca"`
	MTLSServerCASubjects    *string    `bun:"mtls_server_ca_subjects"`
	MTLSServerCAFingerprint *string    `bun:"mtls_server_ca_fingerprint"`
	CreatedAt               time.Time  `bun:"created_at"`
	UpdatedAt               time.Time  `bun:"updated_at"`
	// RowVersion is the row's version (its xmin) when the dispatcher's
	// read gave it (webhooksByID): every write of the row moves it, which
	// says when a copy is out of date (claimed_webhooks.go).
	RowVersion string `bun:"row_version,scanonly"`
}

// TestEventType is the sample a "send test" sends unless told otherwise:
// payment.paid when subscribed (the event integrators act on), else the first.
func (w *Webhook) TestEventType() string {
	if slices.Contains(w.Events, EventPaymentPaid) {
		return EventPaymentPaid
	}
	return w.Events[0]
}

// NewWebhook describes a webhook to create. An empty Secret is generated.
type NewWebhook struct {
	Scope      Scope
	Name       string
	URL        string
	APIVersion string
	Events     []string
	Enabled    bool
	// Signing is what it signs with; an empty Secret of SignatureHMAC is
	// generated.
	Signing      SigningSecret
	RateLimit    *int
	Ordered      bool
	ForwardTrace bool
	// PaymentsVersion is the dated API version it renders events in
	// (checked by the operation); empty: the account's pin.
	PaymentsVersion string
	// Filter is its payload filter (nil: none), checked by the operation.
	Filter *string
	// MTLS, when set, is its mutual TLS settings.
	MTLS *WebhookMTLS
}

// CreateWebhook stores a webhook and returns it with its secret, which is
// shown this once. The cap is enforced under a lock on the account row, so
// concurrent creates can never exceed it.
func (s *Store) CreateWebhook(ctx context.Context, in NewWebhook) (*Webhook, string, error) {
	signing := in.Signing.orGenerated()
	secret := signing.Secret
	now := s.Now()
	w := &Webhook{
		ID: ids.New(ids.PrefixWebhook), AccountID: in.Scope.AccountID, Livemode: in.Scope.Livemode,
		Name: in.Name, URL: in.URL, APIVersion: in.APIVersion, Events: in.Events, Enabled: in.Enabled,
		SecretHint: signing.hint(), RateLimit: in.RateLimit, CreatedAt: now, UpdatedAt: now,
		SignatureAlgorithm: signing.Algorithm, PublicKey: signing.publicKey(), Ordered: in.Ordered, ForwardTrace: in.ForwardTrace,
		Filter: in.Filter, PaymentsVersion: in.PaymentsVersion,
	}
	if !in.Enabled {
		w.DisabledReason = ptr(DisabledManual)
	}
	sealed, err := s.box.Seal(secret, w.ID)
	if err != nil {
		return nil, "", err
	}
	w.SecretSealed = sealed
	if err := s.setMTLS(w, in.MTLS); err != nil {
		return nil, "", err
	}
	err = s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		count := tx.NewSelect().Model((*Webhook)(nil)).Where("account_id = ?", w.AccountID)
		if err := withinAccountCap(ctx, tx, w.AccountID, count, MaxWebhooksPerAccount, ErrWebhookLimit); err != nil {
			return err
		}
		if w.PaymentsVersion == "" {
			// None named: its events speak the account's pinned version
			// (its row locked by the cap above).
			err := tx.NewSelect().Table("accounts").Column("payments_version").Where("id = ?", w.AccountID).Scan(ctx, &w.PaymentsVersion)
			if err != nil {
				return fmt.Errorf("store: the account's version: %w", err)
			}
		}
		if _, err := tx.NewInsert().Model(w).Exec(ctx); err != nil {
			return fmt.Errorf("store: create webhook: %w", translate(err))
		}
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	s.filters.forget()
	return w, secret, nil
}

// Webhook returns one of the scope's webhooks.
func (s *Store) Webhook(ctx context.Context, scope Scope, id string) (*Webhook, error) {
	w := new(Webhook)
	err := s.idb(ctx).NewSelect().Model(w).
		Where("id = ? AND account_id = ? AND livemode = ?", id, scope.AccountID, scope.Livemode).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: webhook: %w", translate(err))
	}
	return w, nil
}

// lockWebhook reads one of the scope's webhooks and locks it until tx ends.
func lockWebhook(ctx context.Context, tx bun.Tx, scope Scope, id string) (*Webhook, error) {
	w := new(Webhook)
	err := tx.NewSelect().Model(w).
		Where("id = ? AND account_id = ? AND livemode = ?", id, scope.AccountID, scope.Livemode).For("UPDATE").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: webhook: %w", translate(err))
	}
	return w, nil
}

// Webhooks lists the scope's webhooks, oldest first.
func (s *Store) Webhooks(ctx context.Context, scope Scope) ([]Webhook, error) {
	var hooks []Webhook
	err := s.idb(ctx).NewSelect().Model(&hooks).
		Where("account_id = ? AND livemode = ?", scope.AccountID, scope.Livemode).Order("created_at", "id").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("store: webhooks: %w", err)
	}
	return hooks, nil
}

// CountWebhooks counts the account's webhooks across both modes.
func (s *Store) CountWebhooks(ctx context.Context, accountID string) (int, error) {
	n, err := s.idb(ctx).NewSelect().Model((*Webhook)(nil)).Where("account_id = ?", accountID).Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("store: count webhooks: %w", err)
	}
	return int(n), nil
}

// WebhookUpdate holds the fields to change; nil fields stay as they are.
type WebhookUpdate struct {
	Name       *string
	URL        *string
	APIVersion *string
	Events     []string
	Enabled    *bool
	// RateLimit sets the deliveries per second; a pointer to 0 removes the limit.
	RateLimit       *int
	Ordered         *bool
	ForwardTrace    *bool
	PaymentsVersion *string
	// Filter replaces the payload filter; RemoveFilter drops it.
	Filter       *string
	RemoveFilter bool
	// MTLS replaces the mutual TLS settings; RemoveMTLS drops them.
	MTLS       *WebhookMTLS
	RemoveMTLS bool
}

// UpdateWebhook applies u. Enabling clears the disabled reason and the
// failure streak; disabling by hand records "manual".
func (s *Store) UpdateWebhook(ctx context.Context, scope Scope, id string, u WebhookUpdate) (*Webhook, error) {
	var w *Webhook
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var err error
		if w, err = lockWebhook(ctx, tx, scope, id); err != nil {
			return err
		}
		if u.Name != nil {
			w.Name = *u.Name
		}
		if u.URL != nil {
			w.URL = *u.URL
		}
		if u.APIVersion != nil {
			w.APIVersion = *u.APIVersion
		}
		if u.Events != nil {
			w.Events = u.Events
		}
		if u.RateLimit != nil {
			w.RateLimit = nil
			if *u.RateLimit > 0 {
				w.RateLimit = u.RateLimit
			}
		}
		unordered := u.Ordered != nil && !*u.Ordered && w.Ordered
		if u.Ordered != nil {
			w.Ordered = *u.Ordered
		}
		if u.ForwardTrace != nil {
			w.ForwardTrace = *u.ForwardTrace
		}
		if u.PaymentsVersion != nil {
			w.PaymentsVersion = *u.PaymentsVersion
		}
		switch {
		case u.RemoveFilter:
			w.Filter = nil
		case u.Filter != nil:
			w.Filter = u.Filter
		}
		if u.MTLS != nil || u.RemoveMTLS {
			if err := s.setMTLS(w, u.MTLS); err != nil {
				return err
			}
		}
		if u.Enabled != nil && *u.Enabled != w.Enabled {
			w.Enabled = *u.Enabled
			if w.Enabled {
				w.DisabledReason, w.FailingSince, w.FailuresSince = nil, nil, 0
			} else {
				w.DisabledReason = ptr(DisabledManual)
			}
		}
		w.UpdatedAt = s.Now()
		_, err = tx.NewUpdate().Model(w).WherePK().Exec(ctx)
		if err != nil {
			return fmt.Errorf("store: update webhook: %w", err)
		}
		if unordered {
			// Its queued deliveries no longer wait for one another: the
			// claim reads an idle unordered webhook's earliest delivery as
			// one it can take (claimSQL).
			_, err = tx.NewRaw(`UPDATE webhook_deliveries SET order_key = NULL
				WHERE webhook_id = ? AND status = 'pending' AND order_key IS NOT NULL`, w.ID).Exec(ctx)
			if err != nil {
				return fmt.Errorf("store: unorder webhook's deliveries: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.filters.forget()
	return w, nil
}

// DeleteWebhook deletes a webhook with its queued deliveries and attempts.
func (s *Store) DeleteWebhook(ctx context.Context, scope Scope, id string) error {
	return s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := lockWebhook(ctx, tx, scope, id); err != nil {
			return err
		}
		// No foreign key ties attempts to their webhook (migration 010): its
		// deliveries' attempts and its test attempts go first, each through
		// its own index. An attempt an in-flight delivery records after this
		// is deleted by the dispatcher, whose finish finds the delivery gone
		// (ForgetAttemptOfDeletedDelivery).
		_, err := tx.NewDelete().Model((*DeliveryAttempt)(nil)).
			Where("delivery_id IN (SELECT id FROM webhook_deliveries WHERE webhook_id = ?)", id).Exec(ctx)
		if err != nil {
			return fmt.Errorf("store: delete webhook attempts: %w", err)
		}
		_, err = tx.NewDelete().Model((*DeliveryAttempt)(nil)).
			Where("webhook_id = ? AND delivery_id IS NULL", id).Exec(ctx)
		if err != nil {
			return fmt.Errorf("store: delete webhook test attempts: %w", err)
		}
		// Its deliveries go with it (ON DELETE CASCADE).
		if _, err := tx.NewDelete().Model((*Webhook)(nil)).Where("id = ?", id).Exec(ctx); err != nil {
			return fmt.Errorf("store: delete webhook: %w", err)
		}
		return nil
	})
}

// RotateWebhookSecret makes next (an HMAC secret generated when empty) what
// the webhook signs with; the current secret or key keeps signing beside it
// for SecretRotationOverlap, whichever algorithm each is.
func (s *Store) RotateWebhookSecret(ctx context.Context, scope Scope, id string, next SigningSecret) (*Webhook, string, error) {
	next = next.orGenerated()
	newSecret := next.Secret
	var w *Webhook
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var err error
		if w, err = lockWebhook(ctx, tx, scope, id); err != nil {
			return err
		}
		sealed, err := s.box.Seal(newSecret, w.ID)
		if err != nil {
			return err
		}
		now := s.Now()
		expires := now.Add(SecretRotationOverlap)
		w.PreviousSecretSealed, w.PreviousSecretExpiresAt = w.SecretSealed, &expires
		w.SecretSealed, w.SecretHint, w.UpdatedAt = sealed, next.hint(), now
		w.SignatureAlgorithm, w.PublicKey = next.Algorithm, next.publicKey()
		if _, err := tx.NewUpdate().Model(w).WherePK().Exec(ctx); err != nil {
			return fmt.Errorf("store: rotate secret: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	return w, newSecret, nil
}

// SigningSecrets opens the secrets that sign a delivery made at now: the
// current one, then the previous one while its overlap lasts.
func (s *Store) SigningSecrets(w *Webhook, now time.Time) ([]string, error) {
	current, err := s.box.Open(w.SecretSealed, w.ID)
	if err != nil {
		return nil, fmt.Errorf("webhook %s: %w", w.ID, err)
	}
	secrets := []string{current}
	if w.PreviousSecretSealed != nil && w.PreviousSecretExpiresAt != nil && now.Before(*w.PreviousSecretExpiresAt) {
		previous, err := s.box.Open(w.PreviousSecretSealed, w.ID)
		if err != nil {
			return nil, fmt.Errorf("webhook %s: previous secret: %w", w.ID, err)
		}
		secrets = append(secrets, previous)
	}
	return secrets, nil
}

func ptr[T any](v T) *T { return &v }

// WebhookNames maps the scope's webhook ids to their names, for pages that
// name the webhooks their deliveries went to.
func (s *Store) WebhookNames(ctx context.Context, scope Scope) (map[string]string, error) {
	var rows []struct {
		ID   string `bun:"id"`
		Name string `bun:"name"`
	}
	err := s.idb(ctx).NewSelect().Model((*Webhook)(nil)).Column("id", "name").
		Where("account_id = ? AND livemode = ?", scope.AccountID, scope.Livemode).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("store: webhook names: %w", err)
	}
	out := make(map[string]string, len(rows))
	for _, r := range rows {
		out[r.ID] = r.Name
	}
	return out, nil
}

// CountWebhooksByMode counts the account's webhooks in test and in live
// mode: the cap counts both together.
func (s *Store) CountWebhooksByMode(ctx context.Context, accountID string) (test, live int, err error) {
	err = s.idb(ctx).NewSelect().Model((*Webhook)(nil)).
		ColumnExpr("count(*) FILTER (WHERE NOT livemode)").ColumnExpr("count(*) FILTER (WHERE livemode)").
		Where("account_id = ?", accountID).Scan(ctx, &test, &live)
	if err != nil {
		return 0, 0, fmt.Errorf("store: count webhooks: %w", err)
	}
	return test, live, nil
}

// Scope is the account and mode the webhook belongs to.
func (w *Webhook) Scope() Scope { return Scope{AccountID: w.AccountID, Livemode: w.Livemode} }
