package web_test

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"payments/pix"
	"payments/web/webtest"
)

// payTimeWords are the overview's buckets of time to pay, in Portuguese.
var payTimeWords = []string{"até 30 s", "30 s a 1 min", "1 a 2 min", "2 a 5 min", "5 a 10 min", "10 a 30 min",
	"30 min a 1 h", "1 a 6 h", "6 a 24 h", "mais de 24 h"}

var payTimeBounds = []time.Duration{30 * time.Second, time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute,
	30 * time.Minute, time.Hour, 6 * time.Hour, 24 * time.Hour}

func payTimeBucket(took time.Duration) int {
	for i, bound := range payTimeBounds {
		if took <= bound {
			return i
		}
	}
	return len(payTimeBounds)
}

// figures are what the overview says of a period, as the test computes
// them from the API's lists.
type figures struct {
	created, paid, gross, fee, expired, canceled, refunds, refunded, disputes, disputed int64
	payTimes                                                                            [10]int64
	receivedByDay                                                                       map[string]int64
	receivedByHour                                                                      map[string]int64
}

// apiFigures computes the figures of [from, to) from every payment, refund
// and dispute the API lists, with days and hours in Brasília.
func apiFigures(t *testing.T, s *webtest.Server, from, to time.Time) figures {
	t.Helper()
	zone := brasilia(t)
	in := func(v any) (time.Time, bool) {
		str, ok := v.(string)
		if !ok {
			return time.Time{}, false
		}
		at, err := time.Parse(time.RFC3339, str)
		require.NoError(t, err)
		return at, !at.Before(from) && at.Before(to)
	}
	list := func(path string) []map[string]any {
		var out []map[string]any
		for _, row := range s.Do(webtest.Request{Method: "GET", Path: path + "?limit=100", Key: s.TestKey}).JSON(t)["data"].([]any) {
			out = append(out, row.(map[string]any))
		}
		return out
	}
	cents := func(v any) int64 { return int64(v.(float64)) }
	f := figures{receivedByDay: map[string]int64{}, receivedByHour: map[string]int64{}}
	for _, p := range list("/api/v1/payments") {
		if _, ok := in(p["created_at"]); ok {
			f.created++
		}
		if paidAt, ok := in(p["paid_at"]); ok {
			created, _ := time.Parse(time.RFC3339, p["created_at"].(string))
			f.paid++
			f.gross += cents(p["amount_paid_cents"])
			f.fee += cents(p["fee_cents"])
			f.payTimes[payTimeBucket(paidAt.Sub(created))]++
			local := paidAt.In(zone)
			f.receivedByDay[local.Format(time.DateOnly)] += cents(p["amount_paid_cents"])
			f.receivedByHour[local.Format("15")] += cents(p["amount_paid_cents"])
		}
		if _, ok := in(p["expired_at"]); ok {
			f.expired++
		}
		if _, ok := in(p["canceled_at"]); ok {
			f.canceled++
		}
	}
	for _, r := range list("/api/v1/refunds") {
		if _, ok := in(r["created_at"]); ok && r["status"] == "succeeded" {
			f.refunds++
			f.refunded += cents(r["amount_cents"])
		}
	}
	for _, d := range list("/api/v1/disputes") {
		if _, ok := in(d["created_at"]); ok {
			f.disputes++
			f.disputed += cents(d["amount_cents"])
		}
	}
	return f
}

func count(n int64) string { return pix.GroupThousands(strconv.FormatInt(n, 10), '.') }

func percent(part, whole int64) string {
	if whole == 0 {
		return "—"
	}
	return strings.Replace(strconv.FormatFloat(float64(part)*100/float64(whole), 'f', 1, 64), ".", ",", 1) + "%"
}

// quantile is the bucket's words of the q-th time to pay (nearest rank).
func quantile(f figures, q float64) string {
	var total int64
	for _, n := range f.payTimes {
		total += n
	}
	if total == 0 {
		return "—"
	}
	rank := int64(q*float64(total) + 0.999999)
	var seen int64
	for i, n := range f.payTimes {
		if seen += n; seen >= rank {
			return payTimeWords[i]
		}
	}
	return payTimeWords[9]
}

// cards is each card's value as the overview should write it.
func (f figures) cards() map[string]string {
	return map[string]string{
		"received_gross": pix.FormatBRL(f.gross), "received_net": pix.FormatBRL(f.gross - f.fee), "paid": count(f.paid),
		"conversion": percent(f.paid, f.created), "pay_time_median": quantile(f, 0.5), "pay_time_p90": quantile(f, 0.9),
		"refunds":  count(f.refunds) + " · " + pix.FormatBRL(f.refunded),
		"disputes": count(f.disputes) + " · " + pix.FormatBRL(f.disputed),
	}
}

// attemptDays is the share of the webhooks' attempts in [from, to) that
// succeeded, per day of Brasília in tenths of a percent, from the
// attempts themselves.
func attemptDays(t *testing.T, s *webtest.Server, from, to time.Time) map[string]string {
	t.Helper()
	var rows []struct {
		Day       string `bun:"day"`
		Attempts  int64  `bun:"attempts"`
		Succeeded int64  `bun:"succeeded"`
	}
	require.NoError(t, s.DB.NewRaw(`SELECT to_char(created_at AT TIME ZONE 'America/Sao_Paulo', 'YYYY-MM-DD') AS day, count(*) AS attempts,
		count(*) FILTER (WHERE response_status BETWEEN 200 AND 299) AS succeeded
		FROM delivery_attempts WHERE created_at >= ? AND created_at < ? GROUP BY 1`, from, to).Scan(t.Context(), &rows))
	out := map[string]string{}
	for _, r := range rows {
		if v := r.Succeeded * 1000 / r.Attempts; v > 0 {
			out[r.Day] = strconv.FormatInt(v, 10)
		}
	}
	return out
}

// overviewRead is what an overview page shows.
type overviewRead struct {
	values, befores map[string]string
	bars            map[string]map[string]string // chart -> key -> data-value
	outcomes        map[string]string
}

func readOverview(t *testing.T, doc *goquery.Document) overviewRead {
	t.Helper()
	o := overviewRead{values: map[string]string{}, befores: map[string]string{}, bars: map[string]map[string]string{}, outcomes: map[string]string{}}
	doc.Find(`[data-testid="overview-card"]`).Each(func(_ int, card *goquery.Selection) {
		key := card.AttrOr("data-key", "")
		o.values[key] = strings.TrimSpace(card.Find(`[data-testid="card-value"]`).Text())
		o.befores[key] = strings.TrimPrefix(strings.TrimSpace(card.Find(`[data-testid="card-before"]`).Text()), "antes: ")
	})
	for _, chart := range []string{"received", "pay-times", "webhook-days"} {
		o.bars[chart] = map[string]string{}
		doc.Find(`[data-testid="bars-` + chart + `"] rect`).Each(func(_ int, r *goquery.Selection) {
			if v := r.AttrOr("data-value", ""); v != "0" {
				o.bars[chart][r.AttrOr("data-key", "")] = v
			}
		})
	}
	doc.Find(`[data-testid="outcome"]`).Each(func(_ int, li *goquery.Selection) {
		o.outcomes[li.AttrOr("data-key", "")] = strings.TrimSpace(li.Find(`[data-testid="outcome-count"]`).Text())
	})
	return o
}

// The overview (/dashboard) says what the API lists over the same days of
// the account's zone: a history made over several days with the clock
// moved, read for today (by hour), 7 and 30 days and a chosen range, each
// figure and each chart's data beside the period before; on a laptop and
// a phone it reads in Portuguese with no serious accessibility violation.
func TestOverviewFiguresEqualTheAPI(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	zone := brasilia(t)
	var deliver func()
	setAt := func(local string) {
		if deliver != nil {
			deliver() // what is due goes out before the clock moves on
		}
		at, err := time.ParseInLocation("2006-01-02 15:04:05", local, zone)
		require.NoError(t, err)
		mu.Lock()
		now = at
		mu.Unlock()
	}
	wait := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	s := webtest.New(t, webtest.WithClock(clock))
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	api := func(method, path string, body map[string]any, want int) map[string]any {
		t.Helper()
		req := webtest.Request{Method: method, Path: path, Key: s.TestKey}
		if body != nil {
			req.Body = body
		}
		r := s.Do(req)
		require.Equal(t, want, r.Status, "%s %s: %s", method, path, r.Body)
		return r.JSON(t)
	}
	// A webhook whose receiver refuses every third delivery.
	var calls atomic.Int64
	recv := webtest.NewReceiver(t, func(w http.ResponseWriter, _ *http.Request) {
		if calls.Add(1)%3 == 0 {
			w.WriteHeader(http.StatusInternalServerError)
		}
	})
	s.CreateWebhook(recv.URL, map[string]any{"events": []string{"payment.created", "payment.paid"}})
	deliver = func() {
		for s.Dispatcher.RunOnce(t.Context(), 100) > 0 {
		}
	}
	create := func(cents int64) string {
		return api("POST", "/api/v1/payments", map[string]any{"amount_cents": cents}, http.StatusCreated)["id"].(string)
	}
	pay := func(id string, after time.Duration) {
		wait(after)
		api("POST", "/api/v1/test_helpers/payments/"+id+"/pay", nil, http.StatusOK)
	}

	// Before the 7 days: paid in 20 s.
	setAt("2026-03-01 10:00:00")
	pay(create(10_000), 20*time.Second)
	// Within them: paid in 90 s, one left to expire, one paid in 4 min
	// and partly refunded, one disputed late in the evening (the next day
	// in UTC), and today's: one pending, one paid in 45 s.
	setAt("2026-03-05 09:00:00")
	pay(create(25_000), 90*time.Second)
	api("POST", "/api/v1/test_helpers/payments/"+create(5_000)+"/expire", nil, http.StatusOK)
	// What happened so far is folded into the hours; what follows is read
	// from the deltas not folded yet: the figures are the same either way.
	_, err := s.Store.FoldRollups(t.Context())
	require.NoError(t, err)
	setAt("2026-03-07 20:30:00")
	refunded := create(40_000)
	pay(refunded, 4*time.Minute)
	api("POST", "/api/v1/payments/"+refunded+"/refund", map[string]any{"amount_cents": 10_000}, http.StatusOK)
	setAt("2026-03-08 23:50:00")
	disputed := create(7_000)
	pay(disputed, 10*time.Second)
	s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + disputed + "/dispute", Key: s.TestKey})
	setAt("2026-03-10 11:00:00")
	create(3_000)
	pay(create(12_345), 45*time.Second)
	setAt("2026-03-10 12:00:00")

	b := newBrowser(t, s)
	b.login("dona@example.com", "correct-horse-battery")
	day := func(d string) time.Time {
		at, err := time.ParseInLocation(time.DateOnly, d, zone)
		require.NoError(t, err)
		return at
	}
	check := func(path string, from, to time.Time, byHour bool) {
		t.Helper()
		p := b.do("GET", path, nil, nil)
		require.Equal(t, http.StatusOK, p.status, "%s: %s", path, p.body)
		got := readOverview(t, p.doc)
		want := apiFigures(t, s, from, to)
		before := apiFigures(t, s, from.Add(-to.Sub(from)), from)
		require.Equal(t, want.cards(), got.values, path)
		require.Equal(t, before.cards(), got.befores, path+": the period before")
		received := map[string]string{}
		source := want.receivedByDay
		if byHour {
			source = want.receivedByHour
		}
		for k, v := range source {
			received[k] = strconv.FormatInt(v, 10)
		}
		require.Equal(t, received, got.bars["received"], path+": received per step")
		payTimes := map[string]string{}
		for i, n := range want.payTimes {
			if n > 0 {
				payTimes[strconv.Itoa(i)] = strconv.FormatInt(n, 10)
			}
		}
		require.Equal(t, payTimes, got.bars["pay-times"], path+": time to pay")
		require.Equal(t, map[string]string{"paid": count(want.paid), "expired": count(want.expired), "canceled": count(want.canceled)},
			got.outcomes, path+": outcomes")
		require.Equal(t, attemptDays(t, s, from, to), got.bars["webhook-days"], path+": webhook success per day")
	}
	check("/dashboard", day("2026-03-04"), day("2026-03-11"), false)
	check("/dashboard?period=7d", day("2026-03-04"), day("2026-03-11"), false)
	check("/dashboard?period=today", day("2026-03-10"), day("2026-03-11"), true)
	check("/dashboard?period=30d", day("2026-02-09"), day("2026-03-11"), false)
	check("/dashboard?period=range&from=2026-03-01&to=2026-03-05", day("2026-03-01"), day("2026-03-06"), false)
	check("/dashboard?period=range&from=2026-03-08&to=2026-03-08", day("2026-03-08"), day("2026-03-09"), true)

	require.NotEmpty(t, attemptDays(t, s, day("2026-03-04"), day("2026-03-11")))
	// The figures are the ones the test meant to make: not all zero.
	seven := apiFigures(t, s, day("2026-03-04"), day("2026-03-11"))
	require.Equal(t, map[string]string{"received_gross": "R$ 843,45", "paid": "4", "conversion": "66,7%",
		"pay_time_median": "30 s a 1 min", "refunds": "1 · R$ 100,00", "disputes": "1 · R$ 70,00"},
		map[string]string{"received_gross": seven.cards()["received_gross"], "paid": seven.cards()["paid"], "conversion": seven.cards()["conversion"],
			"pay_time_median": seven.cards()["pay_time_median"], "refunds": seven.cards()["refunds"], "disputes": seven.cards()["disputes"]})

	// A range it cannot show is a 400 in words, not a page of zeros.
	for _, bad := range []string{"?period=range&from=2026-03-05&to=2026-03-01", "?period=range&from=2026-03-05",
		"?period=range&from=2024-01-01&to=2026-03-01", "?period=ano", "?period=range&from=ontem&to=2026-03-01"} {
		require.Equal(t, http.StatusBadRequest, b.do("GET", "/dashboard"+bad, nil, nil).status, bad)
	}

	// In Chromium, on a laptop and a phone: what the browser shows (the
	// cards as rendered, the bars' data) is the API's figures too.
	want := apiFigures(t, s, day("2026-03-04"), day("2026-03-11"))
	received := map[string]string{}
	for k, v := range want.receivedByDay {
		received[k] = strconv.FormatInt(v, 10)
	}
	for _, vp := range viewports {
		t.Run(vp.name, func(t *testing.T) {
			ctx := newBrowserContext(t, vp)
			var cards, bars map[string]string
			require.NoError(t, chromedp.Run(ctx, signIn(s, "dona@example.com"),
				chromedp.Navigate(s.URL+"/dashboard?period=7d"),
				chromedp.WaitVisible(`[data-testid="chart-received"]`, chromedp.ByQuery),
				chromedp.Evaluate(`Object.fromEntries([...document.querySelectorAll('[data-testid="overview-card"]')]
					.map(c => [c.dataset.key, c.querySelector('[data-testid="card-value"]').innerText.trim()]))`, &cards),
				chromedp.Evaluate(`Object.fromEntries([...document.querySelectorAll('[data-testid="bars-received"] rect')]
					.filter(r => r.dataset.value !== '0').map(r => [r.dataset.key, r.dataset.value]))`, &bars)))
			require.Equal(t, want.cards(), cards)
			require.Equal(t, received, bars)
			checkPage(t, ctx, "overview")
		})
	}
}
