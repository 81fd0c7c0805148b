package web_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"payments/web/webtest"
)

// cpf completes nine digits with their check digits.
func cpf(base string) string {
	d := []byte(base)
	for _, n := range []int{10, 11} {
		sum := 0
		for i := range n - 1 {
			sum += int(d[i]-'0') * (n - i)
		}
		d = append(d, byte('0'+sum*10%11%10))
	}
	return string(d)
}

// Clientes lists the account's payers by CPF or CNPJ, most recently
// charged first, with how many charges named each, how many they paid and
// for how much, as the API's payments say; filtered by a document (or its
// first digits) and by the day of their last charge in the account's zone;
// paged by cursor with the filter kept; each payer's name opens their
// payments; another account's payers never show.
func TestDashboardPayers(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	s := webtest.New(t, webtest.WithClock(clock))
	ownerFor(t, s, s.Account.ID, "dona@example.com")
	charge := func(key string, cents int, name, document string, pay bool) {
		t.Helper()
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: key, Body: map[string]any{"amount_cents": cents,
			"customer": map[string]any{"name": name, "email": strings.ToLower(strings.Fields(name)[0]) + "@example.com", "document": document}}})
		require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
		if pay {
			id := r.JSON(t)["id"].(string)
			require.Equal(t, http.StatusOK, s.Do(webtest.Request{Method: "POST", Path: "/api/v1/test_helpers/payments/" + id + "/pay", Key: key}).Status)
		}
	}
	// Ana (CPF) twice on the 2nd, paying one; the company (CNPJ) on the
	// 3rd at 01:30 UTC (still the 2nd in Brasília), then Ana again on the
	// 4th under a new e-mail's name; Bruno never pays.
	charge(s.TestKey, 10_000, "Ana Lima", "529.982.247-25", true)
	charge(s.TestKey, 2_500, "Ana Lima", "52998224725", false)
	charge(s.TestKey, 2_000, "Bruno Reis", "111.444.777-35", false)
	mu.Lock()
	now = time.Date(2026, 3, 3, 1, 30, 0, 0, time.UTC)
	mu.Unlock()
	charge(s.TestKey, 50_000, "Loja Centro Ltda", "11.222.333/0001-81", true)
	charge(s.TestKey, 50_000, "Loja Centro Ltda", "11.222.333/0001-81", true)
	mu.Lock()
	now = time.Date(2026, 3, 4, 15, 0, 0, 0, time.UTC)
	mu.Unlock()
	charge(s.TestKey, 7_000, "Ana Lima Souza", "52998224725", true)
	// Another account's payer.
	_, otherKey, _ := s.NewAccount("Outra Loja", "outra@example.com")
	charge(otherKey, 1_000, "Carla Dias", "390.533.447-05", true)

	b := newBrowser(t, s)
	b.login("dona@example.com", "correct-horse-battery")
	type row struct{ document, name, charges, paid, last string }
	read := func(path string) ([]row, string) {
		t.Helper()
		// The list is the folded payers (the maintenance jobs fold every second).
		_, err := s.Store.FoldRollups(t.Context())
		require.NoError(t, err)
		p := b.do("GET", path, nil, nil)
		require.Equal(t, http.StatusOK, p.status, "%s: %s", path, p.body)
		var rows []row
		p.doc.Find(`[data-testid="payer-row"]`).Each(func(_ int, r *goquery.Selection) {
			rows = append(rows, row{strings.TrimSpace(r.Find(`[data-testid="payer-document"]`).Text()),
				strings.TrimSpace(r.Find(`[data-testid="payer-payments"]`).Text()),
				strings.TrimSpace(r.Find(`[data-testid="payer-charges"]`).Text()),
				strings.TrimSpace(r.Find(`[data-testid="payer-paid"]`).Text()),
				strings.TrimSpace(r.Find(`[data-testid="payer-last"]`).Text())})
		})
		return rows, p.doc.Find(`[data-testid="next-page"]`).AttrOr("href", "")
	}
	ana := row{"529.982.247-25", "Ana Lima Souza", "3", "2 · R$ 170,00", "04/03/2026 12:00"}
	loja := row{"11.222.333/0001-81", "Loja Centro Ltda", "2", "2 · R$ 1.000,00", "02/03/2026 22:30"}
	bruno := row{"111.444.777-35", "Bruno Reis", "1", "0 · R$ 0,00", "02/03/2026 12:00"}
	rows, next := read("/dashboard/customers")
	require.Equal(t, []row{ana, loja, bruno}, rows)
	require.Empty(t, next)

	// What a payer paid is what the API says their payments paid.
	var paid float64
	for _, p := range s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments?limit=100", Key: s.TestKey}).JSON(t)["data"].([]any) {
		p := p.(map[string]any)
		if c, _ := p["customer"].(map[string]any); c != nil && c["document"] == "52998224725" && p["status"] == "paid" {
			paid += p["amount_paid_cents"].(float64)
		}
	}
	require.Equal(t, float64(17_000), paid)

	// Filters: a document as typed, its first digits, the day of the last
	// charge in Brasília (the company's 01:30 UTC is the 2nd there).
	rows, _ = read("/dashboard/customers?document=529.982.247-25")
	require.Equal(t, []row{ana}, rows)
	rows, _ = read("/dashboard/customers?document=1")
	require.Equal(t, []row{loja, bruno}, rows)
	rows, _ = read("/dashboard/customers?since=2026-03-02&until=2026-03-02")
	require.Equal(t, []row{loja, bruno}, rows)
	for _, bad := range []string{"?document=ab%23c", "?document=%C3%A0bc", "?since=ontem", "?document=123456789012345"} {
		require.Equal(t, http.StatusBadRequest, b.do("GET", "/dashboard/customers"+bad, nil, nil).status, bad)
	}

	// A company with an alphanumeric CNPJ (the Receita's example), typed in
	// lower case: stored in upper case, shown as the Receita writes it,
	// found by its first characters in any case, and its payments by it.
	charge(s.TestKey, 30_000, "Nova Tech Ltda", "12.abc.345/01de-35", true)
	nova := row{"12.ABC.345/01DE-35", "Nova Tech Ltda", "1", "1 · R$ 300,00", "04/03/2026 12:00"}
	rows, _ = read("/dashboard/customers?document=12.abc")
	require.Equal(t, []row{nova}, rows)
	rows, _ = read("/dashboard/customers?document=12ABC34501DE35")
	require.Equal(t, []row{nova}, rows)
	novaPayments := b.do("GET", "/dashboard/payments?q=12.abc.345%2F01de-35", nil, nil)
	require.Equal(t, 1, novaPayments.doc.Find(`[data-testid="payment-row"]`).Length(), "%s", novaPayments.body)

	// Paged by cursor, 25 a page, the filter kept.
	for i := range 26 {
		charge(s.TestKey, 100, "Pagador Teste", cpf(fmt.Sprintf("10000%04d", i)), false)
	}
	first, next := read("/dashboard/customers?document=10000")
	require.Len(t, first, 25)
	require.Contains(t, next, "document=10000")
	second, next := read(next)
	require.Len(t, second, 1)
	require.Empty(t, next)

	// A payer's name opens their payments.
	p := b.do("GET", "/dashboard/customers?document=52998224725", nil, nil)
	href := p.doc.Find(`[data-testid="payer-payments"]`).AttrOr("href", "")
	require.Equal(t, "/dashboard/payments?q=52998224725", href)
	require.Equal(t, 3, b.do("GET", href, nil, nil).doc.Find(`[data-testid="payment-row"]`).Length())
}
