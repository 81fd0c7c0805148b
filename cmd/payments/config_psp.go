package main

import (
	"errors"
	"regexp"
	"slices"
	"time"

	"payments/pix/apipix"
)

// pspConfig is how the service reaches its PSP and how the PSP reaches it.
// With no BaseURL, live mode is off: live keys cannot move money.
type pspConfig struct {
	BaseURL, TokenURL, PayoutURL string
	ClientID, ClientSecret       string
	CertFile, KeyFile, CAFile    string
	// CallbackToken is the path token of /psp/webhook/{token}/pix, for a
	// service behind a proxy that terminates the PSP's mutual TLS.
	CallbackToken string
	// CallbackCAFile verifies the PSP's client certificates when the
	// service terminates TLS itself (TLSCertFile, TLSKeyFile).
	CallbackCAFile           string
	TLSCertFile, TLSKeyFile  string
	Timeout, ChargeWait      time.Duration
	ReconcileInterval, Lease time.Duration
	Workers                  int
	// Account is the platform's account at the PSP, which recurring
	// charges (Pix Automático) pay into.
	Account apipix.CobRRecebedor
	// SandboxPayerURL is the PSP sandbox's payer page (development): the
	// checkout of a live charge links to it.
	SandboxPayerURL string
}

// on says live mode is configured.
func (p pspConfig) on() bool { return p.BaseURL != "" }

// client is the API Pix client the configuration describes.
func (p pspConfig) client() (*apipix.Client, error) {
	return apipix.New(apipix.Config{
		BaseURL: p.BaseURL, TokenURL: p.TokenURL, PayoutURL: p.PayoutURL, ClientID: p.ClientID, ClientSecret: p.ClientSecret,
		CertFile: p.CertFile, KeyFile: p.KeyFile, CAFile: p.CAFile, Timeout: p.Timeout,
	})
}

var (
	accountNumber = regexp.MustCompile(`^[0-9]{1,20}$`)
	branchNumber  = regexp.MustCompile(`^[0-9]{1,4}$`)
)

// minCallbackToken keeps the path token unguessable.
const minCallbackToken = 32

// loadPSPConfig reads the PSP_* and TLS_* variables. No error repeats a value.
func loadPSPConfig(getenv func(string) string, pixKeySet bool) (pspConfig, []error) {
	p := pspConfig{
		BaseURL: getenv("PSP_BASE_URL"), TokenURL: getenv("PSP_TOKEN_URL"), PayoutURL: getenv("PSP_PAYOUT_URL"),
		ClientID: getenv("PSP_CLIENT_ID"), ClientSecret: getenv("PSP_CLIENT_SECRET"),
		CertFile: getenv("PSP_CERT_FILE"), KeyFile: getenv("PSP_KEY_FILE"), CAFile: getenv("PSP_CA_FILE"),
		CallbackToken: getenv("PSP_CALLBACK_TOKEN"), CallbackCAFile: getenv("PSP_CALLBACK_CA_FILE"),
		TLSCertFile: getenv("TLS_CERT_FILE"), TLSKeyFile: getenv("TLS_KEY_FILE"),
		SandboxPayerURL: getenv("PSP_SANDBOX_PAYER_URL"),
		Account: apipix.CobRRecebedor{Conta: getenv("PSP_ACCOUNT_NUMBER"), Agencia: getenv("PSP_ACCOUNT_BRANCH"),
			TipoConta: orDefault(getenv("PSP_ACCOUNT_TYPE"), "CORRENTE")},
	}
	var errs []error
	if p.on() {
		if p.TokenURL == "" || p.ClientID == "" || p.ClientSecret == "" {
			errs = append(errs, errors.New("PSP_BASE_URL needs PSP_TOKEN_URL, PSP_CLIENT_ID and PSP_CLIENT_SECRET (the PSP's OAuth2 client credentials)"))
		}
		if (p.CertFile == "") != (p.KeyFile == "") {
			errs = append(errs, errors.New("PSP_CERT_FILE and PSP_KEY_FILE go together (the client certificate of mutual TLS)"))
		}
		if !pixKeySet {
			errs = append(errs, errors.New("PSP_BASE_URL needs PIX_KEY: the platform's PIX key at the PSP, which live charges are paid into"))
		}
		if !accountNumber.MatchString(p.Account.Conta) || (p.Account.Agencia != "" && !branchNumber.MatchString(p.Account.Agencia)) {
			errs = append(errs, errors.New("PSP_BASE_URL needs PSP_ACCOUNT_NUMBER (up to 20 digits, and PSP_ACCOUNT_BRANCH up to 4 when the PSP has branches): "+
				"the platform's account at the PSP, which Pix Automático's recurring charges are paid into"))
		}
		if !slices.Contains([]string{"CORRENTE", "POUPANCA", "PAGAMENTO"}, p.Account.TipoConta) {
			errs = append(errs, errors.New("PSP_ACCOUNT_TYPE must be CORRENTE, POUPANCA or PAGAMENTO"))
		}
	}
	if (p.TLSCertFile == "") != (p.TLSKeyFile == "") {
		errs = append(errs, errors.New("TLS_CERT_FILE and TLS_KEY_FILE go together"))
	}
	if p.CallbackCAFile != "" && p.TLSCertFile == "" {
		errs = append(errs, errors.New("PSP_CALLBACK_CA_FILE needs TLS_CERT_FILE and TLS_KEY_FILE: only a service that terminates TLS sees client certificates"))
	}
	if p.CallbackToken != "" && len(p.CallbackToken) < minCallbackToken {
		errs = append(errs, errors.New("PSP_CALLBACK_TOKEN must be at least 32 characters (generate one with: openssl rand -hex 32)"))
	}
	var err error
	if p.Workers, err = parseInt(getenv, "PSP_WORKERS", 8, 1); err != nil {
		errs = append(errs, err)
	}
	for _, d := range []struct {
		name string
		def  time.Duration
		dst  *time.Duration
	}{
		{"PSP_TIMEOUT", 10 * time.Second, &p.Timeout},
		{"PSP_CHARGE_WAIT", 8 * time.Second, &p.ChargeWait},
		{"PSP_RECONCILE_INTERVAL", time.Minute, &p.ReconcileInterval},
		{"PSP_CALL_LEASE", time.Minute, &p.Lease},
	} {
		if *d.dst, err = parseDuration(getenv, d.name, d.def); err != nil {
			errs = append(errs, err)
		}
	}
	return p, errs
}
