package versions

import (
	"fmt"
	"slices"
	"strings"
)

// Changelog is the versions and what each changed, newest first, in
// Markdown: API_CHANGELOG.md, as `make generate` writes it (cmd/changelog).
func (l List) Changelog() string {
	var b strings.Builder
	b.WriteString("# API changelog\n\n")
	b.WriteString("Generated from versions/api.go by `make generate`: do not edit.\n\n")
	b.WriteString("Each account is pinned to the dated version that was current when it was made, and changes its pin in the dashboard " +
		"(Chaves de API). A request's `" + Header + "` header answers it in another version (an unknown one is 400 `payments_version_unknown`, " +
		"naming the header); every answer names its version in `" + Header + "`. Each webhook endpoint renders its events in its own " +
		"`payments_version`, sent with every attempt as `" + Header + "`. A breaking change ships as a new version with a converter back to the " +
		"older shapes; additive changes (new fields, routes, event types, values you only get when you ask for them) reach every version. " +
		"`GET /api/v1/api_versions` lists the same, and `GET /api/v1/openapi.json` with a `" + Header + "` header is that version's document.\n")
	for _, v := range slices.Backward(l) {
		b.WriteString("\n## " + v.Date)
		if v.Date == l.Current() {
			b.WriteString(" (current)")
		}
		b.WriteString("\n\n")
		if len(v.Changes) == 0 {
			b.WriteString("The first dated version: the API as the release of " + v.Date + " served it.\n")
		}
		for _, c := range v.Changes {
			fmt.Fprintf(&b, "- %s\n", c.Summary)
		}
	}
	return b.String()
}

// Segment is a piece of a change's text: code (between backticks) or not.
type Segment struct {
	Text string
	Code bool
}

// Segments splits a change's text at its backticks, for a page that shows
// the code as code.
func Segments(text string) []Segment {
	var out []Segment
	for i, part := range strings.Split(text, "`") {
		if part != "" {
			out = append(out, Segment{Text: part, Code: i%2 == 1})
		}
	}
	return out
}
