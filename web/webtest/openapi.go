package webtest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"

	"payments/web"
)

var requestIDPattern = regexp.MustCompile(`^req_[0-9A-Za-z]{22}$`)

// openAPI is the parsed document with compiled response schemas.
type openAPI struct {
	doc      map[string]any
	paths    []pathTemplate
	compiler *jsonschema.Compiler
	mu       sync.Mutex
	schemas  map[string]*jsonschema.Schema
}

type pathTemplate struct {
	template string
	re       *regexp.Regexp
}

var (
	specOnce sync.Once
	spec     *openAPI
	specErr  error
)

func loadSpec() (*openAPI, error) {
	specOnce.Do(func() {
		var doc map[string]any
		if specErr = json.Unmarshal(web.OpenAPIDocument, &doc); specErr != nil {
			return
		}
		raw, err := jsonschema.UnmarshalJSON(bytes.NewReader(web.OpenAPIDocument))
		if err != nil {
			specErr = err
			return
		}
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		c.AssertFormat()
		if specErr = c.AddResource("openapi.json", raw); specErr != nil {
			return
		}
		s := &openAPI{doc: doc, compiler: c, schemas: map[string]*jsonschema.Schema{}}
		for tmpl := range doc["paths"].(map[string]any) {
			pattern := "^" + regexp.MustCompile(`\\\{[^}]+\\\}`).ReplaceAllString(regexp.QuoteMeta(tmpl), `[^/]+`) + "$"
			s.paths = append(s.paths, pathTemplate{template: tmpl, re: regexp.MustCompile(pattern)})
		}
		// Literal segments win over parameters, as in the router:
		// /api/v1/events/stream is not /api/v1/events/{id}.
		slices.SortFunc(s.paths, func(a, b pathTemplate) int {
			return cmp.Or(cmp.Compare(strings.Count(a.template, "{"), strings.Count(b.template, "{")), cmp.Compare(a.template, b.template))
		})
		spec = s
	})
	return spec, specErr
}

// Operation names the documented operation a request hit: "GET /api/v1/payments/{id_or_external_id}".
func Operation(method, path string) (string, bool) {
	s, err := loadSpec()
	if err != nil {
		return "", false
	}
	tmpl, ok := s.match(method, path)
	return strings.ToUpper(method) + " " + tmpl, ok
}

func (s *openAPI) match(method, path string) (string, bool) {
	p, err := url.Parse(path)
	if err == nil {
		path = p.Path
	}
	for _, pt := range s.paths {
		if pt.re.MatchString(path) {
			item := s.doc["paths"].(map[string]any)[pt.template].(map[string]any)
			if _, ok := item[strings.ToLower(method)]; ok {
				return pt.template, true
			}
		}
	}
	return "", false
}

func (s *openAPI) schema(pointer string) (*jsonschema.Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch, ok := s.schemas[pointer]; ok {
		return sch, nil
	}
	sch, err := s.compiler.Compile("openapi.json#" + pointer)
	if err != nil {
		return nil, err
	}
	s.schemas[pointer] = sch
	return sch, nil
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// ValidateResponse fails the test unless the response is what the OpenAPI
// document promises for that operation and status: a documented status, a
// body valid against its schema, and an X-Request-Id. Responses from routes
// the document does not list must be errors in the error shape.
func ValidateResponse(t testing.TB, method, path string, r *Response) {
	t.Helper()
	s, err := loadSpec()
	require.NoError(t, err, "openapi document")
	require.Regexp(t, requestIDPattern, r.Header.Get("X-Request-Id"), "%s %s: X-Request-Id", method, path)

	tmpl, ok := s.match(method, path)
	var pointer string
	if !ok {
		require.GreaterOrEqual(t, r.Status, 400, "%s %s is not in the OpenAPI document but answered %d", method, path, r.Status)
		pointer = "/components/schemas/Error"
	} else {
		opPointer := "/paths/" + escapePointer(tmpl) + "/" + strings.ToLower(method)
		op := s.doc["paths"].(map[string]any)[tmpl].(map[string]any)[strings.ToLower(method)].(map[string]any)
		responses := op["responses"].(map[string]any)
		status := strconv.Itoa(r.Status)
		resp, documented := responses[status].(map[string]any)
		require.True(t, documented, "%s %s answered %d, which the OpenAPI document does not list for %s %s; body: %s",
			method, path, r.Status, strings.ToUpper(method), tmpl, r.Body)
		respPointer := opPointer + "/responses/" + status
		if ref, ok := resp["$ref"].(string); ok {
			respPointer = strings.TrimPrefix(ref, "#")
			resp = s.resolve(respPointer)
		}
		content, _ := resp["content"].(map[string]any)
		contentType := strings.TrimSpace(strings.Split(r.Header.Get("Content-Type"), ";")[0])
		if _, ok := content[contentType]; !ok {
			t.Fatalf("%s %s answered %d with Content-Type %q, not one of the document's %v", method, path, r.Status, contentType, keys(content))
		}
		if contentType != "application/json" {
			return
		}
		pointer = respPointer + "/content/application~1json/schema"
	}
	sch, err := s.schema(pointer)
	require.NoError(t, err, "compile %s", pointer)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(r.Body))
	require.NoError(t, err, "%s %s: body is not JSON: %s", method, path, r.Body)
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("%s %s (%d): body does not match the OpenAPI document:\n%v\nbody: %s", method, path, r.Status, err, r.Body)
	}
}

func (s *openAPI) resolve(pointer string) map[string]any {
	var cur any = s.doc
	for _, part := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		cur = cur.(map[string]any)[part]
	}
	return cur.(map[string]any)
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// DocumentedOperations lists every "METHOD /path" in the document.
func DocumentedOperations() []string {
	s, err := loadSpec()
	if err != nil {
		panic(fmt.Sprintf("openapi document: %v", err))
	}
	var ops []string
	for tmpl, item := range s.doc["paths"].(map[string]any) {
		for method := range item.(map[string]any) {
			if method == "parameters" {
				continue
			}
			ops = append(ops, strings.ToUpper(method)+" "+tmpl)
		}
	}
	return ops
}
