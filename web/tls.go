package web

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
)

// ServerTLS is the TLS of a service that terminates it itself: its
// certificate and, with clientCAFile, the CA of the PSP's client
// certificates. A client certificate is asked for but not required (API
// callers and browsers have none); one that does not chain to the CA fails
// the handshake, and /psp/webhook/pix takes only callers that showed one.
func ServerTLS(certFile, keyFile, clientCAFile string) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("TLS_CERT_FILE/TLS_KEY_FILE: %w", err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if clientCAFile == "" {
		return cfg, nil
	}
	pem, err := os.ReadFile(clientCAFile)
	if err != nil {
		return nil, fmt.Errorf("PSP_CALLBACK_CA_FILE: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, errors.New("PSP_CALLBACK_CA_FILE holds no PEM certificate")
	}
	cfg.ClientAuth, cfg.ClientCAs = tls.VerifyClientCertIfGiven, pool
	return cfg, nil
}
