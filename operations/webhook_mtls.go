package operations

import (
	"strings"
	"time"

	"payments/dispatcher"
	"payments/store"
)

// checkMTLS validates a webhook's mutual TLS settings as given (PEM texts)
// and fills in what people are shown of them. A client certificate comes
// with its private key; a pinned server_ca may come alone.
func checkMTLS(m *store.WebhookMTLS, now time.Time) error {
	if m == nil {
		return nil
	}
	switch {
	case m.Certificate == "" && m.PrivateKey == "" && m.ServerCA == "":
		return &dispatcher.CertificateError{Field: "certificate", Code: "missing_cert", Problem: "give a client certificate with its private_key, a server_ca to pin, or both"}
	case m.Certificate == "" && m.PrivateKey != "":
		return &dispatcher.CertificateError{Field: "certificate", Code: "missing_cert", Problem: "the private key came without its certificate"}
	case m.Certificate != "" && m.PrivateKey == "":
		return &dispatcher.CertificateError{Field: "private_key", Code: "missing_key", Problem: "the certificate came without its private key"}
	}
	if m.Certificate != "" {
		_, info, err := dispatcher.ParseClientCertificate(m.Certificate, m.PrivateKey, now)
		if err != nil {
			return err
		}
		m.Subject, m.Issuer, m.Fingerprint, m.ExpiresAt = info.Subject, info.Issuer, info.Fingerprint, info.NotAfter
	}
	if m.ServerCA != "" {
		_, cas, err := dispatcher.ParseServerCA(m.ServerCA)
		if err != nil {
			return err
		}
		subjects := make([]string, len(cas))
		for i, ca := range cas {
			subjects[i] = ca.Subject
		}
		m.ServerCASubjects, m.ServerCAFingerprint = strings.Join(subjects, "; "), cas[0].Fingerprint
	}
	return nil
}

// mtlsShown is what an audit row says of a webhook's mutual TLS: the
// fingerprints, never the key.
func mtlsShown(w *store.Webhook) any {
	if w.MTLSFingerprint == nil && w.MTLSServerCAFingerprint == nil {
		return nil
	}
	return map[string]*string{"certificate_sha256": w.MTLSFingerprint, "server_ca_sha256": w.MTLSServerCAFingerprint}
}
