package views

import (
	"context"
	"embed"
	"fmt"
	"strconv"
	"strings"
	"time"

	"golang.org/x/text/language"

	"payments/pix"
	"payments/pix/calendar"
)

// The dashboard and the checkout speak Brazilian Portuguese first and
// English as a choice. Every word a person reads comes from the message
// catalogs in locales/ (one TOML file per language, the same ids in each,
// read by catalog.go); templates and handlers ask for messages by id with T.

// Languages the catalogs cover, the default first.
const (
	LangPT = "pt-BR"
	LangEN = "en"
)

// Languages lists the languages a person may choose.
var Languages = []string{LangPT, LangEN}

// DefaultTimeZone is where an account's times are shown unless it chose another.
const DefaultTimeZone = "America/Sao_Paulo"

// TimeZones are the zones an account may choose: Brazil's, and UTC.
var TimeZones = []string{"America/Sao_Paulo", "America/Manaus", "America/Cuiaba", "America/Porto_Velho",
	"America/Rio_Branco", "America/Noronha", "America/Belem", "America/Fortaleza", "America/Recife", "UTC"}

//go:embed locales/*.toml
var localeFiles embed.FS

// matcher picks the closest supported language to a browser's list.
var matcher = language.NewMatcher([]language.Tag{language.BrazilianPortuguese, language.English})

// MatchLanguage is the supported language closest to an Accept-Language
// header; Portuguese when nothing matches.
func MatchLanguage(acceptLanguage string) string {
	tags, _, err := language.ParseAcceptLanguage(acceptLanguage)
	if err != nil || len(tags) == 0 {
		return LangPT
	}
	_, i, confidence := matcher.Match(tags...)
	if confidence == language.No || i == 0 {
		return LangPT
	}
	return LangEN
}

// Locale is how a page speaks: its language and the time zone it shows times in.
type Locale struct {
	Lang     string
	TZ       *time.Location
	messages catalog
}

// NewLocale is the locale of lang in zone; unknown values fall back to the defaults.
func NewLocale(lang, zone string) Locale {
	if lang != LangEN {
		lang = LangPT
	}
	tz, err := time.LoadLocation(zone)
	if err != nil || zone == "" {
		tz, _ = time.LoadLocation(DefaultTimeZone)
	}
	return Locale{Lang: lang, TZ: tz, messages: catalogs[lang]}
}

type localeKey struct{}

// WithLocale returns ctx carrying l, for the pages rendered with it.
func WithLocale(ctx context.Context, l Locale) context.Context {
	return context.WithValue(ctx, localeKey{}, l)
}

// defaultLocale serves contexts that carry none (Portuguese, São Paulo).
var defaultLocale = NewLocale(LangPT, DefaultTimeZone)

// LocaleOf is the locale ctx carries, or the default.
func LocaleOf(ctx context.Context) Locale {
	if l, ok := ctx.Value(localeKey{}).(Locale); ok {
		return l
	}
	return defaultLocale
}

// T is the message id in ctx's language, with kv as its template's data
// ("Name", value, ...). A missing message shows its id, which a test
// forbids (every id used must be in every catalog).
func T(ctx context.Context, id string, kv ...any) string {
	return LocaleOf(ctx).T(id, kv...)
}

// Tn is T for a message with plural forms, chosen by n (also {{.Count}}).
func Tn(ctx context.Context, id string, n int, kv ...any) string {
	return LocaleOf(ctx).localize(id, &n, kv...)
}

// T is the message id in l's language.
func (l Locale) T(id string, kv ...any) string { return l.localize(id, nil, kv...) }

func (l Locale) localize(id string, count *int, kv ...any) string {
	m, ok := l.messages[id]
	if !ok {
		return id
	}
	var data map[string]any
	if len(kv) > 0 || count != nil {
		data = make(map[string]any, len(kv)/2+1)
		for i := 0; i+1 < len(kv); i += 2 {
			data[fmt.Sprint(kv[i])] = kv[i+1]
		}
		if count != nil {
			data["Count"] = *count
		}
	}
	s, ok := m.text(l.Lang, count, data)
	if !ok {
		return id
	}
	return s
}

// Label is the person's word for a code of a kind (a status, a reason, an
// event type ...): the message "kind.code", or the code itself if the
// catalog has none (a test makes sure every known code has one).
func Label(ctx context.Context, kind, code string) string {
	if code == "" {
		return ""
	}
	id := kind + "." + code
	if s := T(ctx, id); s != id {
		return s
	}
	return code
}

// Has reports whether the catalog of ctx's language has the message id.
func Has(ctx context.Context, id string) bool { return T(ctx, id) != id }

// timeLayout is how pages write an instant: the Brazilian way,
// dd/mm/aaaa HH:mm, in the account's time zone.
const timeLayout = "02/01/2006 15:04"

// Time is t as pages show it: dd/mm/aaaa HH:mm in ctx's time zone.
func Time(ctx context.Context, t time.Time) string { return t.In(LocaleOf(ctx).TZ).Format(timeLayout) }

// TimeSeconds is Time with seconds, for what happens within a minute (attempts).
func TimeSeconds(ctx context.Context, t time.Time) string {
	return t.In(LocaleOf(ctx).TZ).Format(timeLayout + ":05")
}

// FormatCount writes a whole number of digits with the language's
// thousands separator ("20.480" in Portuguese, "20,480" in English);
// anything else comes back as it is.
func FormatCount(ctx context.Context, digits string) string {
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return digits
	}
	sep := byte('.')
	if LocaleOf(ctx).Lang == LangEN {
		sep = ','
	}
	return pix.GroupThousands(digits, sep)
}

// FormatInt is n as FormatCount writes it.
func FormatInt(ctx context.Context, n int64) string {
	return FormatCount(ctx, strconv.FormatInt(n, 10))
}

// Day is a civil date as pages show it: dd/mm/aaaa (a due date is a day
// in Brasília, whatever the reader's zone).
func Day(d calendar.Date) string { return d.Time().Format("02/01/2006") }

// ISO is t for a machine (datetime attributes, scripts).
func ISO(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// ErrorText is a refusal in the person's words, by its code; a code the
// catalog lacks gets the generic sentence, never the API's English.
func ErrorText(ctx context.Context, code string) string {
	if id := "error." + code; Has(ctx, id) {
		return T(ctx, id)
	}
	return T(ctx, "error.generic")
}

// LocaleIn is the locale ctx carries, if it carries one.
func LocaleIn(ctx context.Context) (Locale, bool) {
	l, ok := ctx.Value(localeKey{}).(Locale)
	return l, ok
}

// HTTPTitle is an error page's title for an HTTP status.
func HTTPTitle(ctx context.Context, status int) string {
	if id := fmt.Sprintf("http.%d", status); Has(ctx, id) {
		return T(ctx, id)
	}
	if status >= 500 {
		return T(ctx, "http.5xx")
	}
	return T(ctx, "http.4xx")
}
