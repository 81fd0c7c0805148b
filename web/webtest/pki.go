package webtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"testing"
	"time"
)

// CA is a certificate authority of a test's own, for mutual TLS: receivers
// that ask for client certificates it signed, or present a server
// certificate it signed.
type CA struct {
	Cert *x509.Certificate
	key  *ecdsa.PrivateKey
	// PEM is its certificate, PEM.
	PEM string
}

// NewCA makes a CA named name.
func NewCA(t testing.TB, name string) *CA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name, Organization: []string{"Teste"}},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(365 * 24 * time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return &CA{Cert: cert, key: key, PEM: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))}
}

// Issued is a certificate a CA signed, with its key, in PEM and as a pair.
type Issued struct {
	CertPEM, KeyPEM string
	Pair            tls.Certificate
}

// Client issues a client certificate named name, valid until notAfter.
func (ca *CA) Client(t testing.TB, name string, notAfter time.Time) Issued {
	t.Helper()
	return ca.issue(t, &x509.Certificate{Subject: pkix.Name{CommonName: name, Organization: []string{"Loja Teste"}},
		NotAfter: notAfter, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
}

// Server issues a server certificate for 127.0.0.1 and localhost.
func (ca *CA) Server(t testing.TB) Issued {
	t.Helper()
	return ca.issue(t, &x509.Certificate{Subject: pkix.Name{CommonName: "127.0.0.1"}, NotAfter: time.Now().Add(24 * time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames: []string{"localhost"}})
}

func (ca *CA) issue(t testing.TB, tmpl *x509.Certificate) Issued {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl.SerialNumber, tmpl.NotBefore = serial, time.Now().Add(-time.Hour)
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	out := Issued{CertPEM: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		KeyPEM: string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}))}
	if out.Pair, err = tls.X509KeyPair([]byte(out.CertPEM), []byte(out.KeyPEM)); err != nil {
		t.Fatal(err)
	}
	return out
}

// Pool is a pool holding ca alone.
func (ca *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.Cert)
	return p
}
