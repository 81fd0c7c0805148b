package dispatcher

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"strings"
	"time"
)

// MaxPEM bounds each PEM text a webhook's mTLS settings take (a
// certificate chain, a key, or a CA bundle).
const MaxPEM = 64 << 10

// CertificateError says in words what is wrong with a PEM given for mTLS;
// Field is the parameter: certificate, private_key or server_ca.
type CertificateError struct {
	Field   string
	Problem string
	// Code names the problem for a page's words: pem, mismatch, expired,
	// not_yet_valid, usage, missing_key, missing_cert.
	Code string
}

func (e *CertificateError) Error() string { return "mtls." + e.Field + ": " + e.Problem }

// CertificateInfo describes a certificate for people: its subject and
// issuer, its SHA-256 fingerprint (hex pairs with colons, as openssl x509
// -fingerprint -sha256 prints it) and its end.
type CertificateInfo struct {
	Subject     string
	Issuer      string
	Fingerprint string
	NotAfter    time.Time
}

// DescribeCertificate describes a parsed certificate.
func DescribeCertificate(c *x509.Certificate) CertificateInfo {
	sum := sha256.Sum256(c.Raw)
	pairs := make([]string, len(sum))
	for i, b := range sum {
		pairs[i] = strings.ToUpper(hex.EncodeToString([]byte{b}))
	}
	return CertificateInfo{Subject: c.Subject.String(), Issuer: c.Issuer.String(), Fingerprint: strings.Join(pairs, ":"),
		NotAfter: c.NotAfter.UTC()}
}

// ParseClientCertificate checks a client certificate (PEM, the leaf first,
// any intermediates after it) and its private key (PEM: PKCS #8, PKCS #1
// or SEC 1) as a pair a TLS handshake can present at now, and describes
// the leaf.
func ParseClientCertificate(certPEM, keyPEM string, now time.Time) (tls.Certificate, CertificateInfo, error) {
	pair, info, err := loadKeyPair(certPEM, keyPEM)
	if err != nil {
		return tls.Certificate{}, info, err
	}
	switch leaf := pair.Leaf; {
	case now.After(leaf.NotAfter):
		return tls.Certificate{}, info, &CertificateError{Field: "certificate", Code: "expired",
			Problem: "the certificate expired on " + leaf.NotAfter.UTC().Format(time.RFC3339)}
	case now.Before(leaf.NotBefore):
		return tls.Certificate{}, info, &CertificateError{Field: "certificate", Code: "not_yet_valid",
			Problem: "the certificate is not valid before " + leaf.NotBefore.UTC().Format(time.RFC3339)}
	}
	return pair, info, nil
}

// loadKeyPair is ParseClientCertificate without the dates: a stored
// certificate that has since expired is still presented (the receiver
// says what it thinks of it, and the owners were told beforehand).
func loadKeyPair(certPEM, keyPEM string) (tls.Certificate, CertificateInfo, error) {
	if err := onlyPEM("certificate", certPEM, "CERTIFICATE"); err != nil {
		return tls.Certificate{}, CertificateInfo{}, err
	}
	if err := onlyPEM("private_key", keyPEM, "PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY"); err != nil {
		return tls.Certificate{}, CertificateInfo{}, err
	}
	pair, err := tls.X509KeyPair([]byte(certPEM), []byte(keyPEM))
	if err != nil {
		return tls.Certificate{}, CertificateInfo{}, &CertificateError{Field: "private_key", Code: "mismatch",
			Problem: "the private key does not match the certificate, or is not a key TLS can use (" + err.Error() + ")"}
	}
	if pair.Leaf == nil {
		leaf, err := x509.ParseCertificate(pair.Certificate[0])
		if err != nil {
			return tls.Certificate{}, CertificateInfo{}, &CertificateError{Field: "certificate", Code: "pem", Problem: "not a readable X.509 certificate: " + err.Error()}
		}
		pair.Leaf = leaf
	}
	leaf := pair.Leaf
	info := DescribeCertificate(leaf)
	if leaf.KeyUsage != 0 && leaf.KeyUsage&x509.KeyUsageDigitalSignature == 0 {
		return tls.Certificate{}, info, &CertificateError{Field: "certificate", Code: "usage", Problem: "the certificate's key usage does not allow digital signatures, which a TLS client needs"}
	}
	if len(leaf.ExtKeyUsage) > 0 && !hasClientAuth(leaf.ExtKeyUsage) {
		return tls.Certificate{}, info, &CertificateError{Field: "certificate", Code: "usage", Problem: "the certificate's extended key usage does not include client authentication"}
	}
	return pair, info, nil
}

func hasClientAuth(usages []x509.ExtKeyUsage) bool {
	for _, u := range usages {
		if u == x509.ExtKeyUsageClientAuth || u == x509.ExtKeyUsageAny {
			return true
		}
	}
	return false
}

// ParseServerCA reads the CA certificates (PEM) a receiver's certificate
// must chain to, pinned instead of the system's roots, and describes them.
func ParseServerCA(caPEM string) (*x509.CertPool, []CertificateInfo, error) {
	if err := onlyPEM("server_ca", caPEM, "CERTIFICATE"); err != nil {
		return nil, nil, err
	}
	pool := x509.NewCertPool()
	var infos []CertificateInfo
	rest := []byte(caPEM)
	for {
		var block *pem.Block
		if block, rest = pem.Decode(rest); block == nil {
			break
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, nil, &CertificateError{Field: "server_ca", Code: "pem", Problem: "not a readable X.509 certificate: " + err.Error()}
		}
		pool.AddCert(c)
		infos = append(infos, DescribeCertificate(c))
	}
	return pool, infos, nil
}

// onlyPEM checks text is one or more PEM blocks of the given types and
// nothing else but blank space.
func onlyPEM(field, text string, types ...string) error {
	if strings.TrimSpace(text) == "" {
		return &CertificateError{Field: field, Code: "pem", Problem: "empty: paste the PEM text (-----BEGIN ...)"}
	}
	if len(text) > MaxPEM {
		return &CertificateError{Field: field, Code: "pem", Problem: fmt.Sprintf("longer than %d KiB", MaxPEM>>10)}
	}
	rest := []byte(text)
	n := 0
	for {
		block, after := pem.Decode(rest)
		if block == nil {
			break
		}
		known := false
		for _, t := range types {
			known = known || block.Type == t
		}
		if !known {
			return &CertificateError{Field: field, Code: "pem", Problem: fmt.Sprintf("a PEM block of type %q where %s was expected", block.Type, strings.Join(types, " or "))}
		}
		rest, n = after, n+1
	}
	if n == 0 || strings.TrimSpace(string(rest)) != "" {
		return &CertificateError{Field: field, Code: "pem", Problem: "not PEM text (-----BEGIN " + types[0] + "----- ... -----END " + types[0] + "-----)"}
	}
	if field == "private_key" && n != 1 {
		return &CertificateError{Field: field, Code: "pem", Problem: "one private key, please"}
	}
	return nil
}
