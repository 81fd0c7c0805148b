package dispatcher

import (
	"fmt"

	"payments/store"
)

// tlsProfile returns w's own TLS settings, parsed once per version of the
// webhook (its updated_at), or nil when it has none: unsealing and parsing
// a key on every attempt would cost more than the attempt.
func (d *Dispatcher) tlsProfile(w *store.Webhook) (*TLSProfile, error) {
	if w.MTLSCertificate == nil && w.MTLSServerCA == nil {
		return nil, nil
	}
	if cached, ok := d.profiles.Load(w.ID); ok && cached.(*TLSProfile).Version.Equal(w.UpdatedAt) {
		return cached.(*TLSProfile), nil
	}
	p := &TLSProfile{WebhookID: w.ID, Version: w.UpdatedAt}
	if w.MTLSCertificate != nil {
		key, err := d.store.ClientKey(w)
		if err != nil {
			return nil, err
		}
		pair, info, err := loadKeyPair(*w.MTLSCertificate, key)
		if err != nil {
			return nil, fmt.Errorf("webhook %s: client certificate: %w", w.ID, err)
		}
		p.Certificate, p.Presented = &pair, info.Subject
	}
	if w.MTLSServerCA != nil {
		pool, _, err := ParseServerCA(*w.MTLSServerCA)
		if err != nil {
			return nil, fmt.Errorf("webhook %s: server_ca: %w", w.ID, err)
		}
		p.RootCAs, p.Pinned = pool, *w.MTLSServerCASubjects
	}
	d.profiles.Store(w.ID, p)
	return p, nil
}
