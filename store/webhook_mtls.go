package store

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// WebhookMTLS is a webhook's mutual TLS settings as checked by the caller
// (operations, with dispatcher.ParseClientCertificate and ParseServerCA):
// a client certificate and its key to present (both "" for none), and the
// CA certificates to pin the receiver's certificate to ("" for the
// system's roots), with what people are shown of them.
type WebhookMTLS struct {
	Certificate, PrivateKey string
	Subject, Issuer         string
	Fingerprint             string
	ExpiresAt               time.Time
	ServerCA                string
	ServerCASubjects        string
	ServerCAFingerprint     string
}

// mtlsKeyContext binds a sealed client key to its webhook and its use.
func mtlsKeyContext(webhookID string) string { return webhookID + ":mtls" }

// setMTLS puts m on w (nil removes every setting), sealing the key.
func (s *Store) setMTLS(w *Webhook, m *WebhookMTLS) error {
	w.MTLSCertificate, w.MTLSKeySealed, w.MTLSSubject, w.MTLSIssuer, w.MTLSFingerprint = nil, nil, nil, nil, nil
	w.MTLSExpiresAt, w.MTLSExpiryNoticedAt = nil, nil
	w.MTLSServerCA, w.MTLSServerCASubjects, w.MTLSServerCAFingerprint = nil, nil, nil
	if m == nil {
		return nil
	}
	if m.Certificate != "" {
		sealed, err := s.box.Seal(m.PrivateKey, mtlsKeyContext(w.ID))
		if err != nil {
			return fmt.Errorf("store: seal the client key: %w", err)
		}
		expires := m.ExpiresAt
		w.MTLSCertificate, w.MTLSKeySealed, w.MTLSExpiresAt = &m.Certificate, sealed, &expires
		w.MTLSSubject, w.MTLSIssuer, w.MTLSFingerprint = &m.Subject, &m.Issuer, &m.Fingerprint
	}
	if m.ServerCA != "" {
		w.MTLSServerCA, w.MTLSServerCASubjects, w.MTLSServerCAFingerprint = &m.ServerCA, &m.ServerCASubjects, &m.ServerCAFingerprint
	}
	return nil
}

// ClientKey opens the private key of w's client certificate.
func (s *Store) ClientKey(w *Webhook) (string, error) {
	if w.MTLSKeySealed == nil {
		return "", fmt.Errorf("store: webhook %s has no client certificate: %w", w.ID, ErrNotFound)
	}
	key, err := s.box.Open(w.MTLSKeySealed, mtlsKeyContext(w.ID))
	if err != nil {
		return "", fmt.Errorf("webhook %s: client key: %w", w.ID, err)
	}
	return key, nil
}

// NoticeExpiringCertificates tells the owners and admins of each account
// whose webhook's client certificate ends within CertificateExpiryWarning
// (and who were not told yet) by e-mail, and records it in the account's
// activity log (webhook.certificate_expiring, by the service), at most
// limit webhooks a call; each notice is given once per certificate, in
// the transaction that marks it given. It returns how many were given.
func (s *Store) NoticeExpiringCertificates(ctx context.Context, limit int) (int, error) {
	var n int
	err := s.inTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var hooks []Webhook
		err := tx.NewSelect().Model(&hooks).
			Where("mtls_expires_at IS NOT NULL AND mtls_expiry_noticed_at IS NULL AND mtls_expires_at < ?", s.Now().Add(CertificateExpiryWarning)).
			Order("mtls_expires_at").Limit(int64(limit)).For("UPDATE SKIP LOCKED").Scan(ctx)
		if err != nil {
			return fmt.Errorf("store: expiring certificates: %w", err)
		}
		for _, w := range hooks {
			if err := s.mailCertificateExpiring(ctx, tx, &w); err != nil {
				return err
			}
			err := s.auditOn(ctx, tx, AuditRecord{Scope: w.Scope(), Action: "webhook.certificate_expiring", ObjectID: w.ID,
				Changes: Changes{"certificate_sha256": {nil, *w.MTLSFingerprint}, "expires_at": {nil, w.MTLSExpiresAt.UTC().Format(time.RFC3339)}}})
			if err != nil {
				return err
			}
			if _, err := tx.NewUpdate().Model((*Webhook)(nil)).Set("mtls_expiry_noticed_at = ?", s.Now()).
				Where("id = ?", w.ID).Exec(ctx); err != nil {
				return fmt.Errorf("store: certificate noticed: %w", err)
			}
		}
		n = len(hooks)
		return nil
	})
	return n, err
}
