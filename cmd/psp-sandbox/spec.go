package main

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"payments/pix"
)

// The Banco Central's API Pix 2.9.0 (Apache-2.0; testdata/NOTICE): every
// API Pix request the sandbox receives is checked against it, so the
// service's connector is proven against the standard, not against this
// sandbox's reading of it.
//
//go:embed testdata/bcb-api-pix-2.9.0.yaml
var apiPixDocument []byte

// jsDelimited matches the patterns the document writes with JavaScript
// delimiters ("/^\\d{11}$/"), which a JSON Schema validator would read
// literally.
var jsDelimited = regexp.MustCompile(`pattern: "/(\^.*?\$)/"`)

// validator checks requests against the document.
type validator struct {
	router routers.Router
}

// apiPixPrefix is where the sandbox serves API Pix: the document's paths
// (/cob/{txid} ...) follow it.
const apiPixPrefix = "/v2"

func newValidator() (*validator, error) {
	raw := jsDelimited.ReplaceAll(apiPixDocument, []byte(`pattern: "$1"`))
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(raw)
	if err != nil {
		return nil, fmt.Errorf("load the API Pix document: %w", err)
	}
	if err := fixDescontoOneOf(doc); err != nil {
		return nil, err
	}
	if err := fixPixAutomatico(doc); err != nil {
		return nil, err
	}
	doc.Servers = openapi3.Servers{{URL: "http://sandbox" + apiPixPrefix}}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("route the API Pix document: %w", err)
	}
	return &validator{router: router}, nil
}

// fixDescontoOneOf mends CobVValor.desconto's oneOf. Its first branch
// (descontoDataFixa, modalities 1 and 2) requires nothing, so every
// discount of modalities 3 to 6 ({"modalidade", "valorPerc"}) matches both
// branches and no oneOf validator accepts it. The document's own words
// settle it ("Não deve ser enviado valorPerc e descontoDataFixa juntos";
// modalities 1 and 2 with "descontoDataFixa está vazio ou nulo" are
// refused): the first branch requires descontoDataFixa.
func fixDescontoOneOf(doc *openapi3.T) error {
	valor := doc.Components.Schemas["CobVValor"]
	if valor == nil || valor.Value == nil || valor.Value.Properties["desconto"] == nil {
		return errors.New("the API Pix document has no CobVValor.desconto")
	}
	branches := valor.Value.Properties["desconto"].Value.OneOf
	if len(branches) != 2 || branches[0].Value.Properties["descontoDataFixa"] == nil {
		return errors.New("CobVValor.desconto's oneOf is not the one fixDescontoOneOf mends")
	}
	branches[0].Value.Required = []string{"descontoDataFixa"}
	return nil
}

// fixPixAutomatico mends the Pix Automático part of the document, each
// mend on evidence from the document itself (its own request examples,
// which TestTheDocumentsOwnExamplesConform holds to it):
//   - RecBase requires idRec and retentativa, which it does not define,
//     and which POST /rec's examples (the PSP makes the idRec) lack;
//   - SolicRecBase requires pagador, which it does not define (its
//     examples send destinatario);
//   - RecRevisada's vinculo.devedor is oneOf two identical schemas (a
//     name, for a person or a company): every devedor matches both, so
//     it is read as anyOf;
//   - the payloads a payer's bank reads at a location (/{pixUrlAccessToken},
//     /cobv/{pixUrlAccessToken}, /rec/{recUrlAccessToken}) are served
//     elsewhere (the PSP's location host), and in one router they shadow
//     /rec/{idRec}: they are left out.
func fixPixAutomatico(doc *openapi3.T) error {
	drop := func(schema string, names ...string) error {
		ref := doc.Components.Schemas[schema]
		if ref == nil || ref.Value == nil {
			return fmt.Errorf("the API Pix document has no %s", schema)
		}
		kept := ref.Value.Required[:0]
		for _, r := range ref.Value.Required {
			if !slices.Contains(names, r) {
				kept = append(kept, r)
			}
		}
		ref.Value.Required = kept
		return nil
	}
	if err := drop("RecBase", "idRec", "retentativa"); err != nil {
		return err
	}
	if err := drop("SolicRecBase", "pagador"); err != nil {
		return err
	}
	revisada := doc.Components.Schemas["RecRevisada"]
	if revisada == nil || revisada.Value == nil {
		return errors.New("the API Pix document has no RecRevisada")
	}
	mended := false
	for _, part := range revisada.Value.AllOf {
		if vinculo := part.Value.Properties["vinculo"]; vinculo != nil {
			if devedor := vinculo.Value.Properties["devedor"]; devedor != nil && len(devedor.Value.OneOf) == 2 {
				devedor.Value.AnyOf, devedor.Value.OneOf, mended = devedor.Value.OneOf, nil, true
			}
		}
	}
	if !mended {
		return errors.New("RecRevisada's vinculo.devedor is not the oneOf fixPixAutomatico mends")
	}
	for _, payload := range []string{"/{pixUrlAccessToken}", "/cobv/{pixUrlAccessToken}", "/rec/{recUrlAccessToken}"} {
		doc.Paths.Delete(payload)
	}
	return nil
}

// errUndocumented is a request to a path or method the document lacks.
var errUndocumented = errors.New("no such operation in API Pix 2.9.0")

// check validates r (whose body is body) against the document: its path,
// parameters and body. Authentication is the sandbox's own (oauth.go).
func (v *validator) check(r *http.Request, body []byte) error {
	req := r.Clone(r.Context())
	req.URL.Scheme, req.URL.Host, req.Host = "http", "sandbox", "sandbox"
	req.Body = http.NoBody
	if body != nil {
		req.Body = readCloser{bytes.NewReader(body)}
	}
	route, params, err := v.router.FindRoute(req)
	if err != nil {
		return errUndocumented
	}
	err = openapi3filter.ValidateRequest(context.Background(), &openapi3filter.RequestValidationInput{
		Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: false},
	})
	if err != nil {
		return fmt.Errorf("%s", firstLine(err.Error()))
	}
	return nil
}

// checkDocuments refuses a CPF or CNPJ anywhere in body whose check digits
// are wrong, as a PSP does: the document's patterns (^\d{11}$ and, since
// 2.9.0, ^[0-9A-Z]{14}$ for alphanumeric CNPJs) check the shape only, and
// its own examples carry made-up CPFs.
func checkDocuments(body []byte) error {
	if body == nil {
		return nil
	}
	var doc any
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil // the schema check has read the body already
	}
	return walkDocuments(doc, "")
}

func walkDocuments(v any, path string) error {
	switch v := v.(type) {
	case map[string]any:
		for name, field := range v {
			at := strings.TrimPrefix(path+"."+name, ".")
			if s, ok := field.(string); ok && (name == "cpf" || name == "cnpj") {
				if compact, kind, valid := pix.NormalizeDocument(s); !valid || compact != s || string(kind) != name {
					return fmt.Errorf("%s: %q não é um %s válido (dígitos verificadores)", at, s, strings.ToUpper(name))
				}
				continue
			}
			if err := walkDocuments(field, at); err != nil {
				return err
			}
		}
	case []any:
		for i, item := range v {
			if err := walkDocuments(item, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
