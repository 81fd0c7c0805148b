package dashboard

import (
	"errors"
	"io"
	"math"
	"mime/multipart"
	"time"

	"github.com/gofiber/fiber/v2"

	"payments/dispatcher"
	"payments/store"
	"payments/views"
)

// readMTLSFiles reads the PEM files the webhook form uploads: the client
// certificate, its private key and the receiver's CA to pin. None given:
// nil (the settings stay as they are). A file too large or unreadable is
// an error beside its field.
func readMTLSFiles(c *fiber.Ctx, form *views.WebhookForm) *store.WebhookMTLS {
	var m store.WebhookMTLS
	given := false
	for field, dst := range map[string]*string{"mtls_certificate": &m.Certificate, "mtls_private_key": &m.PrivateKey, "mtls_server_ca": &m.ServerCA} {
		fh, err := c.FormFile(field)
		if err != nil || fh.Size == 0 {
			continue
		}
		text, err := readPEMFile(fh)
		if err != nil {
			form.Errors[field] = t(c, "mtls_error.pem")
			continue
		}
		*dst, given = text, true
	}
	if !given {
		return nil
	}
	return &m
}

func readPEMFile(fh *multipart.FileHeader) (string, error) {
	if fh.Size > dispatcher.MaxPEM {
		return "", errors.New("too large")
	}
	f, err := fh.Open()
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, dispatcher.MaxPEM+1))
	return string(b), err
}

// certificateProblem puts an operation's refusal of the mTLS files beside
// the file's field, in the page's language, and says whether there was one.
func certificateProblem(c *fiber.Ctx, err error, form *views.WebhookForm) bool {
	var problem *dispatcher.CertificateError
	if !errors.As(err, &problem) {
		return false
	}
	form.Errors["mtls_"+problem.Field] = t(c, "mtls_error."+problem.Code)
	return true
}

// mtlsView is what w's page shows of its mutual TLS (nil: none).
func mtlsView(c *fiber.Ctx, w *store.Webhook, now time.Time) *views.MTLSView {
	if w.MTLSCertificate == nil && w.MTLSServerCA == nil {
		return nil
	}
	v := &views.MTLSView{}
	if w.MTLSCertificate != nil {
		v.Subject, v.Issuer, v.Fingerprint = *w.MTLSSubject, *w.MTLSIssuer, *w.MTLSFingerprint
		v.ExpiresAt = when(c, *w.MTLSExpiresAt)
		v.Expired = !w.MTLSExpiresAt.After(now)
		v.Expiring = w.CertificateExpiring(now)
		v.DaysLeft = int(math.Ceil(w.MTLSExpiresAt.Sub(now).Hours() / 24))
	}
	if w.MTLSServerCA != nil {
		v.ServerCASubjects, v.ServerCAFingerprint = *w.MTLSServerCASubjects, *w.MTLSServerCAFingerprint
	}
	return v
}
