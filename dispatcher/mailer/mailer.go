// Package mailer sends the e-mail outbox (store.Email rows, written in the
// transaction of the change that sends them) over SMTP: rendered from the
// templates here in the recipient's language, with a real SMTP client
// (wneessen/go-mail). Like the dispatcher's other workers it has Start and
// Stop, leases what it sends, and retries with backoff.
package mailer

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"text/template"
	"time"

	gomail "github.com/wneessen/go-mail"

	"payments/store"
	"payments/store/ids"
)

// Config says where and as whom to send.
type Config struct {
	// URL is the SMTP server: smtp://[user:password@]host:port (STARTTLS
	// when the server offers it; ?tls=required demands it) or
	// smtps://... (TLS from the start).
	URL string
	// From is the sender, e.g. "Pagamentos <nao-responda@example.com>".
	From string
	// Poll is how often the outbox is read (1 s when zero).
	Poll time.Duration
}

// Mailer sends the outbox.
type Mailer struct {
	cfg  Config
	st   *store.Store
	log  *slog.Logger
	opts []gomail.Option
	host string

	stop chan struct{}
	done sync.WaitGroup
}

//go:embed templates
var templates embed.FS

// New checks cfg and returns a mailer (not started).
func New(cfg Config, st *store.Store, log *slog.Logger) (*Mailer, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || u.Hostname() == "" || (u.Scheme != "smtp" && u.Scheme != "smtps") {
		return nil, errors.New("mailer: SMTP_URL must be smtp://host:port or smtps://host:port")
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		port = map[string]int{"smtp": 587, "smtps": 465}[u.Scheme]
	}
	opts := []gomail.Option{gomail.WithPort(port), gomail.WithTimeout(15 * time.Second)}
	switch {
	case u.Scheme == "smtps":
		opts = append(opts, gomail.WithSSL())
	case u.Query().Get("tls") == "required":
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	default:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
	}
	if user := u.User.Username(); user != "" {
		password, _ := u.User.Password()
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthPlain), gomail.WithUsername(user), gomail.WithPassword(password))
	}
	if cfg.From == "" {
		cfg.From = "Pagamentos <nao-responda@localhost>"
	}
	if cfg.Poll <= 0 {
		cfg.Poll = time.Second
	}
	return &Mailer{cfg: cfg, st: st, log: log, opts: opts, host: u.Hostname()}, nil
}

// Start sends the outbox every Poll until Stop.
func (m *Mailer) Start() {
	m.stop = make(chan struct{})
	m.done.Add(1)
	go func() {
		defer m.done.Done()
		tick := time.NewTicker(m.cfg.Poll)
		defer tick.Stop()
		for {
			if _, err := m.RunOnce(context.Background()); err != nil {
				m.log.Warn("mailer: outbox not sent", "error", err.Error())
			}
			select {
			case <-m.stop:
				return
			case <-tick.C:
			}
		}
	}()
}

// Stop ends the worker after the batch in hand.
func (m *Mailer) Stop() {
	if m.stop == nil {
		return
	}
	close(m.stop)
	m.done.Wait()
	m.stop = nil
}

// RunOnce sends what is due and returns how many were sent.
func (m *Mailer) RunOnce(ctx context.Context) (int, error) {
	token := ids.New(ids.PrefixLease)
	due, err := m.st.ClaimEmails(ctx, 20, 2*time.Minute, token)
	if err != nil || len(due) == 0 {
		return 0, err
	}
	client, err := gomail.NewClient(m.host, m.opts...)
	if err != nil {
		return 0, fmt.Errorf("mailer: %w", err)
	}
	sent := 0
	for i := range due {
		e := &due[i]
		sendErr := m.send(ctx, client, e)
		if sendErr != nil {
			// Never the message: its links are the recipient's.
			m.log.Warn("mailer: e-mail not sent", "email", e.ID, "kind", e.Kind, "attempt", e.Attempts, "error", sendErr.Error())
		} else {
			sent++
		}
		if err := m.st.FinishEmail(ctx, e, token, sendErr); err != nil {
			return sent, err
		}
	}
	return sent, nil
}

func (m *Mailer) send(ctx context.Context, client *gomail.Client, e *store.Email) error {
	subject, body, err := Render(e.Kind, e.Locale, e.Data)
	if err != nil {
		return err
	}
	msg := gomail.NewMsg()
	if err := msg.From(m.cfg.From); err != nil {
		return fmt.Errorf("from: %w", err)
	}
	if err := msg.To(e.To); err != nil {
		return fmt.Errorf("to: %w", err)
	}
	msg.Subject(subject)
	msg.SetMessageID()
	msg.SetDate()
	msg.SetGenHeader("X-Payments-Email", e.ID)
	msg.SetBodyString(gomail.TypeTextPlain, body)
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return client.DialAndSendWithContext(ctx, msg)
}

// roleLabels name the roles in the mails' languages.
var roleLabels = map[string]map[string]string{
	store.LocalePT: {store.RoleOwner: "Proprietário", store.RoleAdmin: "Administrador", store.RoleDeveloper: "Desenvolvedor",
		store.RoleFinance: "Financeiro", store.RoleViewer: "Leitor"},
	store.LocaleEN: {store.RoleOwner: "Owner", store.RoleAdmin: "Admin", store.RoleDeveloper: "Developer",
		store.RoleFinance: "Finance", store.RoleViewer: "Viewer"},
}

// Render is the subject and text of an e-mail of kind in locale (pt-BR
// when the locale has no template): a template's first line is the
// subject, the rest the body.
func Render(kind, locale string, data map[string]string) (subject, body string, err error) {
	if _, ok := roleLabels[locale]; !ok {
		locale = store.LocalePT
	}
	if role := data["role"]; role != "" {
		data["role_label"] = roleLabels[locale][role]
	}
	t, err := template.New(kind).Option("missingkey=zero").ParseFS(templates, "templates/"+locale+"/"+kind+".txt")
	if err != nil {
		return "", "", fmt.Errorf("mailer: no template %s/%s: %w", locale, kind, err)
	}
	var b strings.Builder
	if err := t.ExecuteTemplate(&b, kind+".txt", data); err != nil {
		return "", "", fmt.Errorf("mailer: render %s: %w", kind, err)
	}
	subject, body, _ = strings.Cut(b.String(), "\n")
	return strings.TrimSpace(subject), body, nil
}
