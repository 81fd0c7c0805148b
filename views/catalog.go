package views

import (
	"bytes"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"text/template"

	"github.com/BurntSushi/toml"
)

// catalog is every message of one language, by id, read once from its
// TOML file in locales/: `"id" = "text"`, or a section of plural forms
// (`one`, `other`) for a message chosen by a count.
//
// Held as plain strings: go-i18n, which served them before, kept about
// 1.9 MB live for the two catalogs (a template object per form of every
// message), and everything live is what each of the service's garbage
// collections scans, under its memory limit, as often as the dispatcher
// allocates (BENCHMARKS.md, "The messages as text").
type catalog map[string]message

// message is one message's words: other, and one for the messages with
// plural forms (the form for a count of one: 1 in English, 0 and 1 in
// Portuguese).
type message struct {
	other, one string
}

// catalogs are the languages' catalogs, by language.
var catalogs = map[string]catalog{
	LangPT: loadCatalog("locales/active." + LangPT + ".toml"),
	LangEN: loadCatalog("locales/active." + LangEN + ".toml"),
}

func loadCatalog(name string) catalog {
	src, err := fs.ReadFile(localeFiles, name)
	if err != nil {
		panic(fmt.Sprintf("views: message catalog %s: %v", name, err))
	}
	var raw map[string]any
	if err := toml.Unmarshal(src, &raw); err != nil {
		panic(fmt.Sprintf("views: message catalog %s: %v", name, err))
	}
	c := make(catalog, len(raw))
	for id, v := range raw {
		var m message
		switch v := v.(type) {
		case string:
			m.other = v
		case map[string]any:
			for form, text := range v {
				s, ok := text.(string)
				switch {
				case ok && form == "other":
					m.other = s
				case ok && form == "one":
					m.one = s
				default:
					panic(fmt.Sprintf("views: message catalog %s: %s has %s, not one or other", name, id, form))
				}
			}
			if m.other == "" {
				panic(fmt.Sprintf("views: message catalog %s: %s has no other", name, id))
			}
		default:
			panic(fmt.Sprintf("views: message catalog %s: %s is a %T", name, id, v))
		}
		c[id] = m
	}
	return c
}

// text is the message's words for count (nil: none, its other form) in
// lang, with data filled in; ok false when the message has no words for
// it or its template fails.
func (m message) text(lang string, count *int, data map[string]any) (string, bool) {
	src := m.other
	if count != nil && m.one != "" && isOne(lang, *count) {
		src = m.one
	}
	if !strings.Contains(src, "{{") {
		return src, true
	}
	t, err := parsed(src)
	if err != nil {
		return "", false
	}
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return "", false
	}
	return b.String(), true
}

// isOne is whether n takes the form one in lang (CLDR's plural rules for
// whole numbers: English's one is 1; Portuguese's, 0 and 1).
func isOne(lang string, n int) bool {
	if n < 0 {
		n = -n
	}
	if lang == LangEN {
		return n == 1
	}
	return n <= 1
}

// templates are the messages' templates parsed so far, by source: a
// message with placeholders is parsed the first time it is shown.
var templates sync.Map

func parsed(src string) (*template.Template, error) {
	if t, ok := templates.Load(src); ok {
		return t.(*template.Template), nil
	}
	t, err := template.New("").Option("missingkey=default").Parse(src)
	if err != nil {
		return nil, err
	}
	templates.Store(src, t)
	return t, nil
}
