package webtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/dispatcher/mailer"
	"payments/store"
)

// Environment variables naming the mail catcher `make test` starts.
const (
	EnvSMTPURL    = "TEST_SMTP_URL"
	EnvMailpitURL = "TEST_MAILPIT_URL"
)

// WithMail runs the mailer against the suite's mail catcher (Mailpit), as
// `payments serve` does against SMTP_URL; Server.Mail reads what it caught.
func WithMail() Option { return func(o *Options) { o.mail = true } }

// startMailer sends the server's outbox to the suite's Mailpit.
func startMailer(t testing.TB, st *store.Store, log *slog.Logger) {
	t.Helper()
	smtp := os.Getenv(EnvSMTPURL)
	if smtp == "" {
		t.Fatalf("%s is not set: run the suite with `make test`, which starts a mail catcher (Mailpit)", EnvSMTPURL)
	}
	m, err := mailer.New(mailer.Config{URL: smtp, From: "Pagamentos <nao-responda@example.com>", Poll: 50 * time.Millisecond}, st, log)
	require.NoError(t, err)
	m.Start()
	t.Cleanup(m.Stop)
}

// Mail is one message the mail catcher caught.
type Mail struct {
	ID      string
	Subject string
	Text    string
	To      string
}

// Link is the first address in the message that starts with prefix.
func (m Mail) Link(t testing.TB, prefix string) string {
	t.Helper()
	found := regexp.MustCompile(regexp.QuoteMeta(prefix) + `\S*`).FindString(m.Text)
	require.NotEmpty(t, found, "no %s link in %q", prefix, m.Text)
	return found
}

// Mail waits (up to 10 s) for the newest message to `to` whose subject
// contains subject, and returns it.
func (s *Server) Mail(to, subject string) Mail {
	s.t.Helper()
	base := os.Getenv(EnvMailpitURL)
	require.NotEmpty(s.t, base, "%s is not set: run the suite with `make test`", EnvMailpitURL)
	var found Mail
	require.Eventually(s.t, func() bool {
		var list struct {
			Messages []struct {
				ID      string `json:"ID"`
				Subject string `json:"Subject"`
			} `json:"messages"`
		}
		if err := getJSON(base+"/api/v1/search?query="+url.QueryEscape(fmt.Sprintf(`to:"%s"`, to)), &list); err != nil {
			return false
		}
		for _, m := range list.Messages {
			if strings.Contains(m.Subject, subject) {
				var full struct {
					Subject string `json:"Subject"`
					Text    string `json:"Text"`
				}
				if err := getJSON(base+"/api/v1/message/"+m.ID, &full); err != nil {
					return false
				}
				found = Mail{ID: m.ID, Subject: full.Subject, Text: full.Text, To: to}
				return true
			}
		}
		return false
	}, 10*time.Second, 50*time.Millisecond, "no mail to %s about %q", to, subject)
	return found
}

// MailsTo counts the messages the catcher holds for `to`.
func (s *Server) MailsTo(to string) int {
	s.t.Helper()
	var list struct {
		Total int `json:"messages_count"`
	}
	require.NoError(s.t, getJSON(os.Getenv(EnvMailpitURL)+"/api/v1/search?query="+url.QueryEscape(fmt.Sprintf(`to:"%s"`, to)), &list))
	return list.Total
}

func getJSON(u string, into any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("mailpit: %s: %d %s", u, resp.StatusCode, b)
	}
	return json.Unmarshal(b, into)
}
