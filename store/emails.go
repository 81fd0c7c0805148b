package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"payments/store/ids"
)

// The e-mails the service sends (Email.Kind): each is rendered by the
// mailer from its data, in the recipient's language.
const (
	MailVerifyEmail    = "verify_email"
	MailResetPassword  = "reset_password"
	MailInvitation     = "invitation"
	MailNewDevice      = "new_device"
	MailSignInFailures = "sign_in_failures"
	// MailSignUpAttempt: someone tried to sign up with an e-mail that has a user.
	MailSignUpAttempt   = "sign_up_attempt"
	MailWebhookDisabled = "webhook_disabled"
	// MailCertificateExpiring: a webhook's client certificate ends within 30 days.
	MailCertificateExpiring = "certificate_expiring"
	// MailDisputeDefenseDue: a dispute's deadline to answer is near and it
	// has no defense.
	MailDisputeDefenseDue = "dispute_defense_due"
)

// Email is one message of the outbox.
type Email struct {
	bun.BaseModel `bun:"table:emails"`

	ID            string     `bun:"id,pk"`
	AccountID     *string    `bun:"account_id"`
	To            string     `bun:"to_address"`
	Kind          string     `bun:"kind"`
	Locale        string     `bun:"locale"`
	DataSealed    []byte     `bun:"data_sealed"`
	Status        string     `bun:"status"`
	Attempts      int        `bun:"attempts"`
	NextAttemptAt time.Time  `bun:"next_attempt_at"`
	LeaseToken    *string    `bun:"lease_token"`
	LeasedUntil   *time.Time `bun:"leased_until"`
	LastError     *string    `bun:"last_error"`
	CreatedAt     time.Time  `bun:"created_at"`
	SentAt        *time.Time `bun:"sent_at"`

	// Data is what the message is rendered from, opened by ClaimEmails.
	Data map[string]string `bun:"-"`
}

// Statuses of an e-mail.
const (
	EmailPending = "pending"
	EmailSent    = "sent"
	EmailFailed  = "failed"
)

// NewEmail is a message to queue: its kind, recipient, language and data
// (links in it are secrets until sent: the data is sealed).
type NewEmail struct {
	AccountID string
	To        string
	Kind      string
	Locale    string
	Data      map[string]string
}

// QueueEmail writes a message to the outbox, in the ambient transaction
// when ctx carries one (the change's that sends it).
func (s *Store) QueueEmail(ctx context.Context, in NewEmail) error {
	return s.queueEmailOn(ctx, s.idb(ctx), in)
}

// queueEmailOn is QueueEmail in db (a change's transaction).
func (s *Store) queueEmailOn(ctx context.Context, db bun.IDB, in NewEmail) error {
	data, err := json.Marshal(in.Data)
	if err != nil {
		return fmt.Errorf("store: queue email: %w", err)
	}
	id := ids.New(ids.PrefixEmail)
	sealed, err := s.box.Seal(string(data), "email:"+id)
	if err != nil {
		return fmt.Errorf("store: queue email: %w", err)
	}
	now := s.Now()
	e := &Email{ID: id, To: in.To, Kind: in.Kind, Locale: in.Locale, DataSealed: sealed, Status: EmailPending,
		NextAttemptAt: now, CreatedAt: now}
	if e.Locale == "" {
		e.Locale = LocalePT
	}
	if in.AccountID != "" {
		e.AccountID = &in.AccountID
	}
	if _, err := db.NewInsert().Model(e).Exec(ctx); err != nil {
		return fmt.Errorf("store: queue email: %w", err)
	}
	_, err = db.NewRaw("SELECT pg_notify(?, '')", EmailsChannel).Exec(ctx)
	return err
}

// EmailsChannel is notified when an e-mail is queued.
const EmailsChannel = "emails"

// ClaimEmails leases up to limit due e-mails for lease, with their data
// opened.
func (s *Store) ClaimEmails(ctx context.Context, limit int, lease time.Duration, token string) ([]Email, error) {
	now := s.Now()
	var out []Email
	err := s.db.NewRaw(`UPDATE emails SET lease_token = ?, leased_until = ?, attempts = attempts + 1
		WHERE id IN (SELECT id FROM emails WHERE status = 'pending' AND next_attempt_at <= ?
			AND (leased_until IS NULL OR leased_until < ?) ORDER BY next_attempt_at LIMIT ? FOR UPDATE SKIP LOCKED)
		RETURNING *`, token, now.Add(lease), now, now, limit).Scan(ctx, &out)
	if err != nil {
		return nil, fmt.Errorf("store: claim emails: %w", err)
	}
	for i := range out {
		e := &out[i]
		plain, err := s.box.Open(e.DataSealed, "email:"+e.ID)
		if err != nil {
			return nil, fmt.Errorf("store: open email %s: %w", e.ID, err)
		}
		if err := json.Unmarshal([]byte(plain), &e.Data); err != nil {
			return nil, fmt.Errorf("store: email %s data: %w", e.ID, err)
		}
	}
	return out, nil
}

// MaxEmailAttempts is how many times an e-mail is tried before it fails.
const MaxEmailAttempts = 8

// FinishEmail records the end of an attempt of e under token's lease: sent
// (its data blanked: the links in it were for the recipient only), or
// tried again after a backoff, failing after MaxEmailAttempts.
func (s *Store) FinishEmail(ctx context.Context, e *Email, token string, sendErr error) error {
	now := s.Now()
	q := s.db.NewUpdate().Model((*Email)(nil)).Where("id = ? AND lease_token = ?", e.ID, token).
		Set("lease_token = NULL, leased_until = NULL")
	switch {
	case sendErr == nil:
		q = q.Set("status = ?, sent_at = ?, data_sealed = NULL, last_error = NULL", EmailSent, now)
	case e.Attempts >= MaxEmailAttempts:
		q = q.Set("status = ?, data_sealed = NULL, last_error = ?", EmailFailed, truncateRunes(sendErr.Error(), 500))
	default:
		backoff := time.Duration(1<<min(e.Attempts, 10)) * 5 * time.Second
		q = q.Set("next_attempt_at = ?, last_error = ?", now.Add(backoff), truncateRunes(sendErr.Error(), 500))
	}
	if _, err := q.Exec(ctx); err != nil {
		return fmt.Errorf("store: finish email: %w", err)
	}
	return nil
}

// ErrTokenInvalid is a link that is unknown, used, expired or of another kind.
var ErrTokenInvalid = errors.New("store: this link is invalid, used or expired")

// mailWebhookDisabled queues, in db, a mail to each owner and admin of the
// webhook's account: it was disabled for failing.
// mailCertificateExpiring tells the account's owners and admins that w's
// client certificate ends soon, in db (the notice's transaction).
func (s *Store) mailCertificateExpiring(ctx context.Context, db bun.IDB, w *Webhook) error {
	people, account, err := s.ownersAndAdmins(ctx, db, w.AccountID)
	if err != nil {
		return err
	}
	for _, p := range people {
		err := s.queueEmailOn(ctx, db, NewEmail{AccountID: w.AccountID, To: p.Email, Kind: MailCertificateExpiring, Locale: p.Locale,
			Data: map[string]string{"webhook": w.Name, "url": w.URL, "account": account, "subject": *w.MTLSSubject,
				"fingerprint": *w.MTLSFingerprint, "expires_at": w.MTLSExpiresAt.UTC().Format("2006-01-02 15:04 UTC"),
				"link": s.charges.BaseURL + "/dashboard/webhooks/" + w.ID}})
		if err != nil {
			return err
		}
	}
	return nil
}

// person is someone an account's notice goes to.
type person struct {
	Email  string `bun:"email"`
	Locale string `bun:"locale"`
}

// ownersAndAdmins are the account's owners and admins, and its name.
func (s *Store) ownersAndAdmins(ctx context.Context, db bun.IDB, accountID string) ([]person, string, error) {
	var name string
	if err := db.NewRaw(`SELECT name FROM accounts WHERE id = ?`, accountID).Scan(ctx, &name); err != nil {
		return nil, "", fmt.Errorf("store: account's name: %w", err)
	}
	var people []person
	err := db.NewRaw(`SELECT u.email, u.locale FROM memberships AS m JOIN users AS u ON u.id = m.user_id
		WHERE m.account_id = ? AND m.role IN ('owner', 'admin') ORDER BY u.email`, accountID).Scan(ctx, &people)
	if err != nil {
		return nil, "", fmt.Errorf("store: account's owners: %w", err)
	}
	return people, name, nil
}

func (s *Store) mailWebhookDisabled(ctx context.Context, db bun.IDB, webhookID string) error {
	var w struct {
		AccountID string `bun:"account_id"`
		Name      string `bun:"name"`
		URL       string `bun:"url"`
		Reason    string `bun:"disabled_reason"`
	}
	err := db.NewRaw(`SELECT account_id, name, url, coalesce(disabled_reason, '') AS disabled_reason
		FROM webhooks WHERE id = ?`, webhookID).Scan(ctx, &w)
	if err != nil {
		return fmt.Errorf("store: disabled webhook: %w", err)
	}
	people, account, err := s.ownersAndAdmins(ctx, db, w.AccountID)
	if err != nil {
		return err
	}
	for _, p := range people {
		err := s.queueEmailOn(ctx, db, NewEmail{AccountID: w.AccountID, To: p.Email, Kind: MailWebhookDisabled, Locale: p.Locale,
			Data: map[string]string{"webhook": w.Name, "url": w.URL, "account": account, "reason": w.Reason,
				"link": s.charges.BaseURL + "/dashboard/webhooks/" + webhookID}})
		if err != nil {
			return err
		}
	}
	return nil
}

// MailedSince says whether a mail of kind to `to` was queued since then.
func (s *Store) MailedSince(ctx context.Context, to, kind string, since time.Time) (bool, error) {
	var found bool
	err := s.idb(ctx).NewRaw(`SELECT EXISTS (SELECT 1 FROM emails WHERE lower(to_address) = lower(?) AND kind = ? AND created_at >= ?)`,
		to, kind, since).Scan(ctx, &found)
	if err != nil {
		return false, fmt.Errorf("store: mailed since: %w", err)
	}
	return found, nil
}
