// Package versions holds the API's dated versions, as Stripe dates its
// own: which exist, what each changed, and the converters that give an
// integrator pinned to an older version the shapes it was written
// against. Each account is pinned to the version current when it was
// made; a request's Payments-Version header overrides the pin, and each
// webhook endpoint renders its events in its own pinned version.
//
// A breaking change ships as a new Version whose Change says, for the
// routes and event types it touches, how to turn the new shape back into
// the previous one. Additive changes (a new field, a new route, a new
// value an integrator only receives when it asks for it) are not
// versioned: every version gets them.
package versions

import (
	"fmt"
	"slices"
	"strings"
)

// Header is the request and response header that names a version.
const Header = "Payments-Version"

// Version is one dated version of the API.
type Version struct {
	// Date names it (YYYY-MM-DD): what Payments-Version carries.
	Date string
	// Changes are what it changed from the version before it (none for
	// the first).
	Changes []Change
}

// Change is one breaking change, with what turns it back.
type Change struct {
	// Summary says what changed, in English; Resumo, in Portuguese (the
	// changelog page shows the one of its reader's language).
	Summary, Resumo string
	// Routes are the API routes ("POST /api/v1/webhooks", Fiber's
	// patterns) whose answers or requests changed.
	Routes []string
	// Response turns a successful answer of one of Routes, a JSON object,
	// from this version's shape into the previous version's, in place.
	Response func(body *Object) error
	// Request turns a request body of one of Routes (route) sent by an
	// integrator of an older version into what this version reads.
	Request func(route string, body []byte) []byte
	// EventTypes are the event types whose data.object changed; Object
	// turns such an object into the previous version's shape, in place.
	EventTypes []string
	Object     func(object *Object) error
	// Document turns the OpenAPI document from this version's description
	// into the previous version's, in place.
	Document func(doc map[string]any)
}

// List is every version, oldest first.
type List []Version

// Current is the newest version: what new accounts are pinned to and what
// a request without a pin or header gets.
func (l List) Current() string { return l[len(l)-1].Date }

// Known says date names a version.
func (l List) Known(date string) bool { return l.index(date) >= 0 }

// Dates are the versions' names, oldest first.
func (l List) Dates() []string {
	out := make([]string, len(l))
	for i, v := range l {
		out[i] = v.Date
	}
	return out
}

func (l List) index(date string) int {
	return slices.IndexFunc(l, func(v Version) bool { return v.Date == date })
}

// after are the changes made after version date, newest first: the order
// their converters run in, each undoing one step back.
func (l List) after(date string) []Change {
	i := l.index(date)
	if i < 0 || i == len(l)-1 {
		return nil
	}
	var out []Change
	for j := len(l) - 1; j > i; j-- {
		for _, c := range slices.Backward(l[j].Changes) {
			out = append(out, c)
		}
	}
	return out
}

// Response is body, an answer of route, in version date's shape: body
// itself when no change since date touches route (the current version's
// answers are never decoded).
func (l List) Response(date, route string, body []byte) ([]byte, error) {
	return l.convert(date, body, func(c Change) func(*Object) error {
		if c.Response == nil || !slices.Contains(c.Routes, route) {
			return nil
		}
		return c.Response
	})
}

// Object is data, the object of an event of eventType, in version date's
// shape: data itself when no change since date touches the type.
func (l List) Object(date, eventType string, data []byte) ([]byte, error) {
	return l.convert(date, data, func(c Change) func(*Object) error {
		if c.Object == nil || !slices.Contains(c.EventTypes, eventType) {
			return nil
		}
		return c.Object
	})
}

func (l List) convert(date string, body []byte, pick func(Change) func(*Object) error) ([]byte, error) {
	var steps []func(*Object) error
	for _, c := range l.after(date) {
		if step := pick(c); step != nil {
			steps = append(steps, step)
		}
	}
	if len(steps) == 0 {
		return body, nil
	}
	object, err := parseObject(body)
	if err != nil {
		return nil, fmt.Errorf("versions: %s: %w", date, err)
	}
	for _, step := range steps {
		if err := step(object); err != nil {
			return nil, fmt.Errorf("versions: %s: %w", date, err)
		}
	}
	return object.MarshalJSON()
}

// Request is body, a request of route sent by an integrator of version
// date, as the current version reads it.
func (l List) Request(date, route string, body []byte) []byte {
	changes := l.after(date)
	for _, c := range slices.Backward(changes) { // oldest first: each step forward
		if c.Request != nil && slices.Contains(c.Routes, route) {
			body = c.Request(route, body)
		}
	}
	return body
}

// ChangesRequest says whether a request of route from version date is
// converted before it is read.
func (l List) ChangesRequest(date, route string) bool {
	for _, c := range l.after(date) {
		if c.Request != nil && slices.Contains(c.Routes, route) {
			return true
		}
	}
	return false
}

// Document turns doc, the current OpenAPI document, into version date's.
func (l List) Document(date string, doc map[string]any) {
	for _, c := range l.after(date) {
		if c.Document != nil {
			c.Document(doc)
		}
	}
}

// Route is the pattern among the changes' routes ("POST /api/v1/webhooks/:id")
// that a request of method to path matches, or "" when no change names
// one: only the routes a change names are ever converted.
func (l List) Route(method, path string) string {
	for _, v := range l {
		for _, c := range v.Changes {
			for _, r := range c.Routes {
				if matches(r, method, path) {
					return r
				}
			}
		}
	}
	return ""
}

// matches says a request of method to path is route's: its method, and
// its path segment by segment, a :name segment standing for any one.
func matches(route, method, path string) bool {
	m, pattern, _ := strings.Cut(route, " ")
	if m != method {
		return false
	}
	for {
		p, restPattern, morePattern := strings.Cut(pattern, "/")
		s, restPath, morePath := strings.Cut(path, "/")
		if morePattern != morePath || (strings.HasPrefix(p, ":") && s == "") || (!strings.HasPrefix(p, ":") && p != s) {
			return false
		}
		if !morePattern {
			return true
		}
		pattern, path = restPattern, restPath
	}
}
