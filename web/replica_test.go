package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"payments/store"
	"payments/web/webtest"
)

// The dashboard's lists read from a real streaming standby (the one `make
// test` runs) while it is within the lag bound; a standby further behind
// is skipped, the reader's own writes are read back from the primary,
// money is never read from the standby, and a standby that goes away
// mid-run fails nothing.
func TestDashboardReadsFromTheReplica(t *testing.T) {
	t.Parallel()
	const maxLag = 3 * time.Second
	s := webtest.New(t, webtest.WithReplica(maxLag))
	ownerFor(t, s, s.Account.ID, "owner@example.com")
	b := newBrowser(t, s)
	b.login("owner@example.com", "correct-horse-battery")
	listed := func() map[string]bool {
		t.Helper()
		p := b.do("GET", "/dashboard/payments", nil, nil)
		require.Equal(t, http.StatusOK, p.status, p.body)
		out := map[string]bool{}
		p.doc.Find(`[data-testid="payment-row"]`).Each(func(_ int, sel *goquery.Selection) { out[sel.AttrOr("data-payment-id", "")] = true })
		return out
	}
	used := func() bool { _, ok := s.Replica.Lag(); return ok }
	require.Eventually(t, used, time.Minute, 50*time.Millisecond, "the standby serves once it has the test's database")

	// The standby's replay, paused and resumed (it is this test's alone:
	// no other test reads from it).
	standby, err := store.OpenReplica(webtest.StandbyURL(t, s.DBURL), 2)
	require.NoError(t, err)
	t.Cleanup(func() { _ = standby.Close() })
	replay := func(on bool) {
		t.Helper()
		fn := "pg_wal_replay_pause"
		if on {
			fn = "pg_wal_replay_resume"
		}
		_, err := standby.ExecContext(context.Background(), "SELECT "+fn+"()")
		require.NoError(t, err)
		if !on {
			require.Eventually(t, func() bool {
				var state string
				return standby.QueryRowContext(context.Background(), "SELECT pg_get_wal_replay_pause_state()").Scan(&state) == nil && state == "paused"
			}, 5*time.Second, 10*time.Millisecond)
		}
	}
	// Whatever happens to the test, the standby replays again (cleanups
	// run last first: before the connection closes).
	t.Cleanup(func() {
		_, err := standby.ExecContext(context.Background(), "SELECT pg_wal_replay_resume()")
		assert.NoError(t, err, "the standby's replay resumed")
	})

	// behind runs fn with the standby's replay paused, until a run that
	// began and ended with the standby still within the bound (under
	// load, one may outlast it): what fn reads fresh then did not come
	// from the standby by chance of its being skipped.
	behind := func(what string, fn func(try int)) {
		t.Helper()
		for try := range 5 {
			replay(true)
			require.Eventually(t, used, time.Minute, 50*time.Millisecond)
			replay(false)
			fn(try)
			if used() {
				replay(true)
				return
			}
		}
		t.Fatalf("%s: the standby never stayed within the bound for the whole check", what)
	}

	// Reads go to the standby while it is within the bound: a payment made
	// after its replay stopped is not listed yet, though the API (the
	// primary) has it.
	seen := s.CreatePayment(validPayment("antes", "ana@example.com"))["id"].(string)
	require.Eventually(t, func() bool { return listed()[seen] }, 10*time.Second, 50*time.Millisecond)
	var later string
	behind("the standby's reads", func(try int) {
		later = s.CreatePayment(validPayment(fmt.Sprintf("depois-%d", try), "bia@example.com"))["id"].(string)
		r := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/" + later, Key: s.TestKey})
		require.Equal(t, http.StatusOK, r.Status)
		// Under load the page may outlast the bound; the standby served it
		// only if it is still in use once the page is read (its lag only
		// grows while paused).
		if got := listed()[later]; used() {
			require.False(t, got, "read from the standby")
		}
	})
	// ... and once it is further behind than the bound, from the primary.
	replay(false)
	latest := s.CreatePayment(validPayment("mais-tarde", "bia@example.com"))["id"].(string)
	require.Eventually(t, func() bool { return !used() }, 3*maxLag, 50*time.Millisecond)
	require.True(t, listed()[latest], "a standby past the bound is skipped")

	// Money is never read from the standby: the balance a payment just
	// made shows at once, and so does the payment's own page.
	behind("money", func(int) {
		before := b.do("GET", "/dashboard/balance", nil, nil).doc.Find(`[data-testid="balance-available"]`).Text()
		paid := s.Fund(s.TestKey, 12345)
		require.NotEqual(t, before, b.do("GET", "/dashboard/balance", nil, nil).doc.Find(`[data-testid="balance-available"]`).Text())
		require.Equal(t, http.StatusOK, b.do("GET", "/dashboard/payments/"+paid, nil, nil).status)
	})

	// The reader's own write is read back: the payment a form made is in
	// the list the form sends the browser to, with the standby paused.
	var ownID string
	behind("own writes", func(try int) {
		ref := fmt.Sprintf("pelo-painel-%d", try)
		made := b.do("POST", "/dashboard/payments", url.Values{"_csrf": {b.csrf("/dashboard/payments/new")}, "amount": {"25,00"},
			"external_id": {ref}}, nil)
		require.Equal(t, http.StatusSeeOther, made.status, made.body)
		require.NotNil(t, b.cookie("/dashboard", "payments_own_writes"))
		require.NoError(t, s.DB.NewRaw("SELECT id::text FROM payments WHERE external_id = ?", ref).Scan(context.Background(), &ownID))
		require.True(t, listed()[ownID], "the reader's own payment, from the primary")
	})

	// The standby taken away in the middle of a run of reads: every page
	// answers, whole, and the standby serves again once it is back.
	require.Eventually(t, used, time.Minute, 50*time.Millisecond)
	var wg sync.WaitGroup
	failures := make(chan string, 100000)
	stop := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				res, err := b.client.Get(s.URL + "/dashboard/payments")
				if err != nil {
					failures <- err.Error()
					continue
				}
				doc, err := goquery.NewDocumentFromReader(res.Body)
				_ = res.Body.Close()
				if err != nil || res.StatusCode != http.StatusOK {
					failures <- fmt.Sprintf("status %d, %v", res.StatusCode, err)
					continue
				}
				rows := map[string]bool{}
				doc.Find(`[data-testid="payment-row"]`).Each(func(_ int, sel *goquery.Selection) { rows[sel.AttrOr("data-payment-id", "")] = true })
				if !rows[seen] || !rows[later] || !rows[ownID] {
					failures <- "a page without the payments"
				}
			}
		})
	}
	time.Sleep(300 * time.Millisecond)
	s.ReplicaProxy.Cut()
	// Reads go on past the next measurement of the standby.
	time.Sleep(2 * maxLag / 4 * 3)
	require.False(t, used())
	close(stop)
	wg.Wait()
	close(failures)
	for f := range failures {
		t.Error(f)
	}
	s.ReplicaProxy.Restore()
	require.Eventually(t, used, time.Minute, 50*time.Millisecond)
	require.True(t, listed()[later])
}
