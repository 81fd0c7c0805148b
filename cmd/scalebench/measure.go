package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
)

// endpoint is one request timed.
type endpoint struct {
	name   string
	client *http.Client
	key    string // API key, or "" for the session the client carries
	path   string
}

// figure is an endpoint's latencies.
type figure struct {
	name     string
	p50, p99 time.Duration
}

var csrfField = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

// signIn returns a client carrying a dashboard session of email.
func signIn(base, email, password string) (*http.Client, error) {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 60 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Get(base + "/login")
	if err != nil {
		return nil, err
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	m := csrfField.FindSubmatch(page)
	if m == nil {
		return nil, fmt.Errorf("sign in: no CSRF field on /login")
	}
	res, err = c.PostForm(base+"/login", url.Values{"email": {email}, "password": {password}, "_csrf": {string(m[1])}})
	if err != nil {
		return nil, err
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		return nil, fmt.Errorf("sign in as %s: %d", email, res.StatusCode)
	}
	return c, nil
}

// measure times every endpoint, one request after another.
// brasilia is the loaded accounts' time zone, the days the dashboard's
// filters read.
var brasilia = time.FixedZone("BRT", -3*60*60)

func measure(base string, fx *fixture, requests int, only string) ([]figure, error) {
	api := &http.Client{Timeout: 60 * time.Second}
	owner, err := signIn(base, fx.OwnerEmail, fx.Password)
	if err != nil {
		return nil, err
	}
	support, err := signIn(base, fx.SupportEmail, fx.Password)
	if err != nil {
		return nil, err
	}
	old := time.Now().Add(-80 * 24 * time.Hour)
	window := fmt.Sprintf("created[gte]=%d&created[lte]=%d", old.Add(-24*time.Hour).Unix(), old.Unix())
	day := old.In(brasilia).Format(time.DateOnly)
	today := time.Now().In(brasilia).Format(time.DateOnly)
	ninetyDaysBack := time.Now().In(brasilia).AddDate(0, 0, -89).Format(time.DateOnly)
	o, r := fx.Old, fx.Recent
	q := url.QueryEscape
	eps := []endpoint{
		{"API list payments", api, fx.BigKey, "/api/v1/payments"},
		{"API list payments (a small account)", api, fx.SmallKey, "/api/v1/payments"},
		{"API list payments, status=paid", api, fx.BigKey, "/api/v1/payments?status=paid"},
		{"API list payments, a created window 80 days back", api, fx.BigKey, "/api/v1/payments?" + window},
		{"API get payment (80 days old)", api, fx.BigKey, "/api/v1/payments/" + o.ID},
		{"API get payment by external_id", api, fx.BigKey, "/api/v1/payments/" + o.ExternalID},
		{"API list events", api, fx.BigKey, "/api/v1/events"},
		{"API list events, delivery_success=false", api, fx.BigKey, "/api/v1/events?delivery_success=false"},
		{"API list events, type=payment.paid, a window 80 days back", api, fx.BigKey, "/api/v1/events?type=payment.paid&" + window},
		{"API get event", api, fx.BigKey, "/api/v1/events/" + r.EventID},
		{"API list refunds", api, fx.BigKey, "/api/v1/refunds"},
		{"API balance", api, fx.BigKey, "/api/v1/balance"},
		{"API list a webhook's deliveries", api, fx.BigKey, "/api/v1/webhooks/" + fx.WebhookID + "/deliveries"},
		{"API list subscriptions", api, fx.BigKey, "/api/v1/subscriptions"},
		{"API list disputes", api, fx.BigKey, "/api/v1/disputes"},
		{"API list withdrawals", api, fx.BigKey, "/api/v1/withdrawals"},
		{"API list reports", api, fx.BigKey, "/api/v1/reports"},
		{"dashboard payments", owner, "", "/dashboard/payments"},
		{"dashboard payments, status=paid", owner, "", "/dashboard/payments?status=paid"},
		{"dashboard payments search by e-mail", owner, "", "/dashboard/payments?q=" + q(o.Email)},
		{"dashboard payments search by external_id", owner, "", "/dashboard/payments?q=" + q(o.ExternalID)},
		{"dashboard payments search by CPF", owner, "", "/dashboard/payments?q=" + q(o.CPF)},
		{"dashboard payments search by name", owner, "", "/dashboard/payments?q=" + q("joao silva 4")},
		{"dashboard payments search, nothing found", owner, "", "/dashboard/payments?q=" + q("nada-consta-9")},
		{"dashboard payment page (80 days old)", owner, "", "/dashboard/payments/" + o.ID},
		{"dashboard balance", owner, "", "/dashboard/balance"},
		{"dashboard subscriptions", owner, "", "/dashboard/subscriptions"},
		{"dashboard audit log", owner, "", "/dashboard/audit"},
		{"dashboard refunds", owner, "", "/dashboard/refunds"},
		{"dashboard refunds, a day 80 days back", owner, "", "/dashboard/refunds?since=" + day + "&until=" + day},
		{"dashboard disputes", owner, "", "/dashboard/disputes"},
		{"dashboard withdrawals", owner, "", "/dashboard/withdrawals"},
		{"dashboard events", owner, "", "/dashboard/events"},
		{"dashboard events, type=payment.paid", owner, "", "/dashboard/events?type=payment.paid"},
		{"dashboard events, a day 80 days back", owner, "", "/dashboard/events?since=" + day + "&until=" + day},
		{"dashboard reports", owner, "", "/dashboard/reports"},
		{"dashboard customers", owner, "", "/dashboard/customers"},
		{"dashboard customers by CPF", owner, "", "/dashboard/customers?document=" + q(o.CPF)},
		{"dashboard overview, today", owner, "", "/dashboard?period=today"},
		{"dashboard overview, 7 days", owner, "", "/dashboard?period=7d"},
		{"dashboard overview, 30 days", owner, "", "/dashboard?period=30d"},
		{"dashboard overview, 90 days", owner, "", "/dashboard?period=range&from=" + ninetyDaysBack + "&to=" + today},
		{"delivery console", owner, "", "/dashboard/webhooks/" + fx.WebhookID},
		{"delivery console, failed", owner, "", "/dashboard/webhooks/" + fx.WebhookID + "?status=failed"},
		{"delivery console, event type", owner, "", "/dashboard/webhooks/" + fx.WebhookID + "?event_type=payment.expired"},
		{"delivery console search by external_id", owner, "", "/dashboard/webhooks/" + fx.WebhookID + "?q=" + q(o.ExternalID)},
		{"delivery console search by payment id", owner, "", "/dashboard/webhooks/" + fx.WebhookID + "?q=" + q(o.ID)},
		{"delivery console search by event id", owner, "", "/dashboard/webhooks/" + fx.WebhookID + "?q=" + q(o.EventID)},
		{"support search by e-mail", support, "", "/dashboard/support?q=" + q(o.Email)},
		{"support search by CPF", support, "", "/dashboard/support?q=" + q(o.CPF)},
		{"support search by txid", support, "", "/dashboard/support?q=" + q(o.TxID)},
		{"support search by end-to-end id", support, "", "/dashboard/support?q=" + q(o.EndToEndID)},
		{"support search by external_id", support, "", "/dashboard/support?q=" + q(o.ExternalID)},
		{"support search by payment id", support, "", "/dashboard/support?q=" + q(o.ID)},
		{"support search by e-mail (recent)", support, "", "/dashboard/support?q=" + q(r.Email)},
		{"support search, nothing found", support, "", "/dashboard/support?q=" + q("nada-consta-9")},
		{"support payment page", support, "", "/dashboard/support/payments/" + o.ID},
	}
	var out []figure
	for _, ep := range eps {
		if only != "" && !strings.Contains(ep.name, only) {
			continue
		}
		f, err := timeEndpoint(base, ep, requests)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// timeEndpoint makes three untimed requests, then n timed ones; any answer
// but 200 fails the run.
func timeEndpoint(base string, ep endpoint, n int) (figure, error) {
	var took []time.Duration
	for k := -3; k < n; k++ {
		req, _ := http.NewRequest(http.MethodGet, base+ep.path, nil)
		if ep.key != "" {
			req.Header.Set("Authorization", "Bearer "+ep.key)
		}
		began := time.Now()
		res, err := ep.client.Do(req)
		if err != nil {
			return figure{}, fmt.Errorf("%s: %w", ep.name, err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		d := time.Since(began)
		if res.StatusCode != http.StatusOK {
			return figure{}, fmt.Errorf("%s: GET %s answered %d", ep.name, ep.path, res.StatusCode)
		}
		if k >= 0 {
			took = append(took, d)
		}
	}
	slices.Sort(took)
	return figure{name: ep.name, p50: took[len(took)/2], p99: took[min(len(took)-1, len(took)*99/100)]}, nil
}

func markdown(sz size, figs []figure) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%d payments over %d accounts (the first with a tenth), %d days; one request after another\n\n", sz.Payments, sz.Accounts, sz.Days)
	b.WriteString("| request | p50 ms | p99 ms |\n|---|---:|---:|\n")
	for _, f := range figs {
		fmt.Fprintf(&b, "| %s | %.1f | %.1f |\n", f.name, ms(f.p50), ms(f.p99))
	}
	return b.String()
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
