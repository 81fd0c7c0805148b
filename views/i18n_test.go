package views_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/stretchr/testify/require"

	"payments/dispatcher"
	"payments/pix"
	"payments/store"
	"payments/views"
)

func catalog(t *testing.T, lang string) map[string]any {
	t.Helper()
	var m map[string]any
	_, err := toml.DecodeFile(filepath.Join("locales", "active."+lang+".toml"), &m)
	require.NoError(t, err)
	return m
}

// Both catalogs hold the same messages, each with the same placeholders.
func TestCatalogsMatch(t *testing.T) {
	t.Parallel()
	pt, en := catalog(t, views.LangPT), catalog(t, views.LangEN)
	keys := func(m map[string]any) []string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	require.Equal(t, keys(pt), keys(en), "the same message ids in both languages")
	placeholder := regexp.MustCompile(`\{\{\.[A-Za-z]+\}\}`)
	holders := func(v any) []string {
		var s string
		switch v := v.(type) {
		case string:
			s = v
		case map[string]any:
			s = v["other"].(string)
		}
		out := placeholder.FindAllString(s, -1)
		sort.Strings(out)
		return slices.Compact(out)
	}
	for k := range pt {
		require.Equal(t, holders(pt[k]), holders(en[k]), "placeholders of %s", k)
	}
}

// sourceFiles are the Go and templ files that ask for messages.
func sourceFiles(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, dir := range []string{".", "../handlers", "../web"} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasSuffix(path, "_test.go") || strings.HasSuffix(path, "_templ.go") {
				return err
			}
			if strings.HasSuffix(path, ".go") || strings.HasSuffix(path, ".templ") {
				b, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				out[path] = string(b)
			}
			return nil
		})
		require.NoError(t, err)
	}
	return out
}

// Every message id the code asks for by name is in the catalog, and every
// code shown to a person (statuses, reasons, event types, ledger entries,
// PSP steps, delivery errors, refusals) has its words.
func TestEveryMessageAndCodeIsTranslated(t *testing.T) {
	t.Parallel()
	pt := catalog(t, views.LangPT)
	has := func(id string) bool { _, ok := pt[id]; return ok }
	literal := regexp.MustCompile(`\b(?:T|Tn|t)\((?:ctx|c|c\.UserContext\(\)), "([a-z0-9_.]+)"\s*[,)]`)
	for path, src := range sourceFiles(t) {
		for _, m := range literal.FindAllStringSubmatch(src, -1) {
			require.True(t, has(m[1]), "%s asks for %q, which the catalog lacks", path, m[1])
		}
	}
	codes := map[string][]string{
		"status.payment": store.PaymentStatuses, "status.refund": store.RefundStatuses, "status.dispute": store.DisputeStatuses,
		"status.withdrawal": store.WithdrawalStatuses, "status.delivery": store.DeliveryStatuses, "status.batch_item": store.BatchItemStatuses,
		"status.subscription": store.SubscriptionStatuses, "interval": store.Intervals, "status.cycle": store.CycleStatuses,
		"journey": store.Journeys, "canceled_by": {store.CanceledByReceiver, store.CanceledByPayer},
		"status.call": {store.CallPending, store.CallSucceeded, store.CallFailed}, "status.transfer": store.PixOutcomes,
		"dispute_reason": store.DisputeReasons, "dispute_stage": store.DisputeStages, "status.contest": store.ContestStatuses, "refund_reason": {store.RefundRequested, store.RefundDisputeLost},
		"event": store.EventTypes, "event_desc": store.EventTypes, "ledger": store.LedgerEntryTypes,
		"balance_kind": {store.BalanceAvailable, store.BalancePending}, "psp_call": store.CallKinds,
		"attempt_error": dispatcher.ErrorClasses, "disabled_reason": store.DisabledReasons, "tz": views.TimeZones,
		"mode": {"test", "live"}, "status.report": store.ReportStatuses, "report_type": store.ReportTypes, "report_format": store.ReportFormats, "status.payment_link": store.LinkStandings, "status.pix_qr_code": store.QRCodeStandings,
		"new_payment": {"expires_15m", "expires_1h", "expires_1d", "expires_3d", "expires_7d"},
	}
	for _, k := range pix.KeyTypes {
		codes["pix_key_type"] = append(codes["pix_key_type"], string(k))
	}
	for kind, list := range codes {
		for _, code := range list {
			require.True(t, has(kind+"."+code), "no words for %s %q", kind, code)
		}
	}
	// Refusals: every error code the web layer or a handler can give.
	code := regexp.MustCompile(`(?:Code:\s*|InvalidParam\(|Forbidden\(|InvalidRequest\([^,]+,\s*)"([a-z_]+)"`)
	for path, src := range sourceFiles(t) {
		if !strings.Contains(path, "handlers") && !strings.Contains(path, "web") {
			continue
		}
		for _, m := range code.FindAllStringSubmatch(src, -1) {
			require.True(t, has("error."+m[1]), "%s refuses with %q, which has no words", path, m[1])
		}
	}
}

func TestLocaleFormatsTheBrazilianWay(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 25, 1, 30, 0, 0, time.UTC)
	ctx := views.WithLocale(context.Background(), views.NewLocale(views.LangPT, "America/Sao_Paulo"))
	require.Equal(t, "24/11/2026 22:30", views.Time(ctx, at), "Brasília is UTC-3: an evening payment stays on its day")
	require.Equal(t, "Pago", views.Label(ctx, "status.payment", "paid"))
	require.Equal(t, "3 tentativas", views.Tn(ctx, "delivery.attempts", 3))
	en := views.WithLocale(context.Background(), views.NewLocale(views.LangEN, "UTC"))
	require.Equal(t, "25/11/2026 01:30", views.Time(en, at))
	require.Equal(t, "Paid", views.Label(en, "status.payment", "paid"))
	require.Equal(t, "1 attempt", views.Tn(en, "delivery.attempts", 1))
	require.Equal(t, views.LangPT, views.MatchLanguage(""))
	require.Equal(t, views.LangPT, views.MatchLanguage("pt-PT,pt;q=0.9"))
	require.Equal(t, views.LangEN, views.MatchLanguage("en-US,en;q=0.9"))
	require.Equal(t, views.LangPT, views.MatchLanguage("fr-FR"))
	require.Equal(t, views.T(ctx, "error.generic"), views.ErrorText(ctx, "no_such_code"), "never the API's English")
}

// A message is its language's words: the plural form by CLDR's rules for
// whole numbers (Portuguese's one is 0 and 1; English's, 1), placeholders
// filled in, an id the catalog lacks shown as it is.
func TestMessagesTakeTheirLanguagesPluralForms(t *testing.T) {
	t.Parallel()
	pt := views.WithLocale(context.Background(), views.NewLocale(views.LangPT, "America/Sao_Paulo"))
	en := views.WithLocale(context.Background(), views.NewLocale(views.LangEN, "UTC"))
	for n, want := range map[int][2]string{
		0: {"0 tentativa", "0 attempts"}, 1: {"1 tentativa", "1 attempt"}, 2: {"2 tentativas", "2 attempts"},
		1_000_000: {"1000000 tentativas", "1000000 attempts"},
	} {
		require.Equal(t, want[0], views.Tn(pt, "delivery.attempts", n))
		require.Equal(t, want[1], views.Tn(en, "delivery.attempts", n))
	}
	require.Equal(t, "Vence em 1 dia (01/12/2026): troque-o antes.",
		views.Tn(pt, "health.certificate_expiring", 1, "At", "01/12/2026"))
	require.Equal(t, "Pedido 42", views.T(pt, "activity.order", "Order", 42))
	require.Equal(t, "Cancelar", views.T(pt, "action.cancel", "Unused", 1))
	require.Equal(t, "no.such.message", views.T(en, "no.such.message"))
	require.Equal(t, "Pedido <no value>", views.T(pt, "activity.order"), "a placeholder without its value, as text/template writes it")
}
