// Command psp-sandbox is a payment service provider for tests and `make
// run`: a real separate server that implements the part of the Banco
// Central's API Pix the service uses (OAuth2 client credentials, optional
// mutual TLS, cob, pix, devolução, webhook) and a payout port modeled on
// Efí's Pix send, validates every API Pix request against the official
// OpenAPI document, has a payer's bank that pays charges and calls back like
// a PSP, and switchable faults (latency, 5xx, dropped and duplicated
// callbacks, slow devoluções).
//
//	psp-sandbox certs -dir DIR [-hosts 127.0.0.1,localhost]
//	psp-sandbox serve [flags]   (see -h)
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "psp-sandbox:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) > 0 && args[0] == "certs" {
		fs := flag.NewFlagSet("certs", flag.ContinueOnError)
		dir := fs.String("dir", "", "directory for the development CA and certificates")
		hosts := fs.String("hosts", "127.0.0.1,localhost", "names the server certificates are for")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *dir == "" {
			return errors.New("certs: -dir is required")
		}
		return writeDevPKI(*dir, strings.Split(*hosts, ","))
	}
	if len(args) > 0 && args[0] == "serve" {
		args = args[1:]
	}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	apiAddr := fs.String("api-addr", "127.0.0.1:8443", "address of the PSP's API (API Pix under /v2, the payout port, /oauth/token)")
	payerAddr := fs.String("payer-addr", "127.0.0.1:8444", "address of the payer's bank and the sandbox's controls (plain HTTP)")
	tlsDir := fs.String("tls-dir", "", "directory `psp-sandbox certs` wrote: the API serves HTTPS with it (plain HTTP without)")
	mtls := fs.Bool("mtls", false, "require a client certificate signed by the directory's CA on the API")
	clientID := fs.String("client-id", envOr("PSP_SANDBOX_CLIENT_ID", "payments"), "OAuth2 client id accepted")
	clientSecret := fs.String("client-secret", os.Getenv("PSP_SANDBOX_CLIENT_SECRET"), "OAuth2 client secret accepted (env PSP_SANDBOX_CLIENT_SECRET)")
	chave := fs.String("chave", "7d9f0335-8dcc-4054-9bf9-0dbd61d36906", "the receiver's PIX key at this PSP")
	account := fs.String("account", "1234567", "the receiver's account number at this PSP (recurring charges pay into it)")
	name := fs.String("name", "Pagamentos", "the name the platform's key is registered under: BR Codes and the payer's bank show it as the receiver")
	city := fs.String("city", "SAO PAULO", "the receiver's city in BR Codes")
	tokenTTL := fs.Duration("token-ttl", time.Hour, "lifetime of access tokens")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *clientSecret == "" {
		return errors.New("a client secret is required (-client-secret or PSP_SANDBOX_CLIENT_SECRET)")
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	spec, err := newValidator()
	if err != nil {
		return err
	}
	apiLn, err := net.Listen("tcp", *apiAddr)
	if err != nil {
		return err
	}
	payerLn, err := net.Listen("tcp", *payerAddr)
	if err != nil {
		return err
	}
	st := newState()
	callbackClient := &http.Client{Timeout: 5 * time.Second}
	scheme := "http"
	if *tlsDir != "" {
		serverTLS, clientTLS, err := loadTLS(*tlsDir, *mtls)
		if err != nil {
			return err
		}
		apiLn = tls.NewListener(apiLn, serverTLS)
		callbackClient.Transport = &http.Transport{TLSClientConfig: clientTLS}
		scheme = "https"
	}
	sb := &sandbox{st: st, spec: spec, log: log, chave: *chave, account: *account, name: *name, city: *city, apiHost: apiLn.Addr().String(),
		auth:      &issuer{clientID: *clientID, clientSecret: *clientSecret, ttl: *tokenTTL, tokens: map[string]issued{}},
		callbacks: &caller{st: st, client: callbackClient, log: log}}
	api := &http.Server{Handler: sb.routes(), ReadHeaderTimeout: 10 * time.Second}
	payer := &http.Server{Handler: sb.payerRoutes(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = api.Serve(apiLn) }()
	go func() { _ = payer.Serve(payerLn) }()
	ready, _ := json.Marshal(map[string]string{"api": scheme + "://" + apiLn.Addr().String(), "payer": "http://" + payerLn.Addr().String()})
	fmt.Println(string(ready))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Debits come due as real days pass too, not only when the clock moves.
	go func() {
		for t := time.NewTicker(10 * time.Second); ctx.Err() == nil; <-t.C {
			sb.runDueDebits()
		}
	}()
	<-ctx.Done()
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = api.Shutdown(shutdown)
	_ = payer.Shutdown(shutdown)
	return nil
}

// loadTLS reads the development PKI: the API's server certificate (and,
// with mtls, the CA its clients' certificates must chain to), and the
// client certificate callbacks present with the CA that verifies the
// service when it serves HTTPS.
func loadTLS(dir string, mtls bool) (server, client *tls.Config, err error) {
	cert, err := tls.LoadX509KeyPair(filepath.Join(dir, "sandbox-server.pem"), filepath.Join(dir, "sandbox-server-key.pem"))
	if err != nil {
		return nil, nil, fmt.Errorf("server certificate: %w", err)
	}
	caPEM, err := os.ReadFile(filepath.Join(dir, "ca.pem"))
	if err != nil {
		return nil, nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, nil, errors.New("ca.pem holds no certificate")
	}
	server = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if mtls {
		server.ClientAuth, server.ClientCAs = tls.RequireAndVerifyClientCert, pool
	}
	callbackCert, err := tls.LoadX509KeyPair(filepath.Join(dir, "sandbox-client.pem"), filepath.Join(dir, "sandbox-client-key.pem"))
	if err != nil {
		return nil, nil, fmt.Errorf("callback client certificate: %w", err)
	}
	client = &tls.Config{Certificates: []tls.Certificate{callbackCert}, RootCAs: pool, MinVersion: tls.VersionTLS12}
	return server, client, nil
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
