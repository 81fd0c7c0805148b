package dispatcher

import (
	"bytes"
	"fmt"

	"payments/store"
)

// tlsProfile returns w's own TLS settings, parsed once per version of them,
// or nil when it has none: unsealing and parsing a key on every attempt
// would cost more than the attempt. A version is the settings themselves,
// not the webhook's updated_at: two changes in one millisecond (a
// certificate, then its server_ca, from a script) share that, and the
// second went unseen until the webhook changed again.
func (d *Dispatcher) tlsProfile(w *store.Webhook) (*TLSProfile, error) {
	if w.MTLSCertificate == nil && w.MTLSServerCA == nil {
		return nil, nil
	}
	source := tlsSourceOf(w)
	if cached, ok := d.profiles.Load(w.ID); ok && cached.(*TLSProfile).source.equal(source) {
		return cached.(*TLSProfile), nil
	}
	p := &TLSProfile{WebhookID: w.ID, source: source}
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

// tlsSource is what a webhook's TLS profile is parsed from.
type tlsSource struct {
	certificate, serverCA string
	keySealed             []byte
}

func tlsSourceOf(w *store.Webhook) tlsSource {
	var s tlsSource
	if w.MTLSCertificate != nil {
		s.certificate = *w.MTLSCertificate
	}
	if w.MTLSServerCA != nil {
		s.serverCA = *w.MTLSServerCA
	}
	s.keySealed = w.MTLSKeySealed
	return s
}

func (s tlsSource) equal(o tlsSource) bool {
	return s.certificate == o.certificate && s.serverCA == o.serverCA && bytes.Equal(s.keySealed, o.keySealed)
}
