package api_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"payments/web"
	"payments/web/webtest"
)

// with returns the valid body with one field replaced (or removed when v is nil).
func with(path string, v any) map[string]any {
	b := validCreateBody()
	parts := strings.Split(path, ".")
	m := b
	for _, p := range parts[:len(parts)-1] {
		m = m[p].(map[string]any)
	}
	last := parts[len(parts)-1]
	if v == nil {
		delete(m, last)
	} else {
		m[last] = v
	}
	return b
}

func TestCreatePaymentValidationRules(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	manyKeys := map[string]any{}
	for i := range 51 {
		manyKeys[fmt.Sprintf("k%d", i)] = "v"
	}
	cases := []struct {
		name   string
		body   any
		status int
		code   string
		param  string
	}{
		{"empty body", "", 400, "invalid_json", ""},
		{"not json", "{amount_cents: 1}", 400, "invalid_json", ""},
		{"json array", "[1,2]", 400, "invalid_json", ""},
		{"json null", "null", 400, "invalid_json", ""},
		{"trailing garbage", `{"amount_cents": 100} x`, 400, "invalid_json", ""},
		{"invalid UTF-8 in a string", "{\"amount_cents\": 100, \"description\": \"caf\xe9\"}", 400, "invalid_json", ""},
		{"invalid UTF-8 in a key", "{\"amount_cents\": 100, \"metadata\": {\"\xff\": \"v\"}}", 400, "invalid_json", ""},
		{"unknown field", with("amount", 100), 400, "parameter_unknown", "amount"},
		{"unknown customer field", with("customer.cpf", "1"), 400, "parameter_unknown", "customer.cpf"},
		{"amount missing", with("amount_cents", nil), 400, "parameter_missing", "amount_cents"},
		{"amount null", `{"amount_cents": null}`, 400, "parameter_missing", "amount_cents"},
		{"amount string", with("amount_cents", "100"), 400, "parameter_invalid_type", "amount_cents"},
		{"amount fraction", `{"amount_cents": 10.5}`, 400, "parameter_invalid_type", "amount_cents"},
		{"amount exponent", `{"amount_cents": 1e3}`, 400, "parameter_invalid_type", "amount_cents"},
		{"amount zero", with("amount_cents", 0), 400, "amount_too_small", "amount_cents"},
		{"amount negative", with("amount_cents", -5), 400, "amount_too_small", "amount_cents"},
		{"amount above max", with("amount_cents", 100_000_001), 400, "amount_too_large", "amount_cents"},
		{"amount beyond int64", `{"amount_cents": 99999999999999999999999}`, 400, "amount_too_large", "amount_cents"},
		{"description not string", with("description", 5), 400, "parameter_invalid_type", "description"},
		{"description too long", with("description", strings.Repeat("é", 501)), 400, "parameter_too_long", "description"},
		{"description with NUL", with("description", "a\x00b"), 400, "parameter_invalid", "description"},
		{"external_id bad chars", with("external_id", "order 42"), 400, "parameter_invalid", "external_id"},
		{"external_id empty", with("external_id", ""), 400, "parameter_invalid", "external_id"},
		{"external_id too long", with("external_id", strings.Repeat("a", 129)), 400, "parameter_too_long", "external_id"},
		{"expires_in too short", with("expires_in", 299), 400, "parameter_invalid", "expires_in"},
		{"expires_in too long", with("expires_in", 2_592_001), 400, "parameter_invalid", "expires_in"},
		{"expires_in string", with("expires_in", "3600"), 400, "parameter_invalid_type", "expires_in"},
		{"metadata not object", with("metadata", []any{"a"}), 400, "parameter_invalid_type", "metadata"},
		{"metadata too many keys", with("metadata", manyKeys), 400, "parameter_invalid", "metadata"},
		{"metadata key too long", with("metadata", map[string]any{strings.Repeat("k", 41): "v"}), 400, "parameter_invalid", "metadata[" + strings.Repeat("k", 41) + "]"},
		{"metadata empty key", with("metadata", map[string]any{"": "v"}), 400, "parameter_invalid", "metadata[]"},
		{"metadata value not string", with("metadata", map[string]any{"n": 1}), 400, "parameter_invalid_type", "metadata[n]"},
		{"metadata value too long", with("metadata", map[string]any{"n": strings.Repeat("v", 501)}), 400, "parameter_too_long", "metadata[n]"},
		{"customer not object", with("customer", "maria"), 400, "parameter_invalid_type", "customer"},
		{"customer name missing", with("customer.name", nil), 400, "parameter_missing", "customer.name"},
		{"customer name blank", with("customer.name", "   "), 400, "parameter_invalid", "customer.name"},
		{"customer name too long", with("customer.name", strings.Repeat("n", 121)), 400, "parameter_too_long", "customer.name"},
		{"customer email missing", with("customer.email", nil), 400, "parameter_missing", "customer.email"},
		{"customer email invalid", with("customer.email", "maria@"), 400, "parameter_invalid", "customer.email"},
		{"customer email with name", with("customer.email", "Maria <maria@example.com>"), 400, "parameter_invalid", "customer.email"},
		{"customer document missing", with("customer.document", nil), 400, "parameter_missing", "customer.document"},
		{"customer CPF check digit", with("customer.document", "529.982.247-24"), 400, "document_invalid", "customer.document"},
		{"customer CNPJ check digit", with("customer.document", "11.222.333/0001-82"), 400, "document_invalid", "customer.document"},
		{"alphanumeric CNPJ check digit", with("customer.document", "12.ABC.345/01DE-53"), 400, "document_invalid", "customer.document"},
		{"alphanumeric CNPJ letter as check digit", with("customer.document", "12.ABC.345/01DE-3E"), 400, "document_invalid", "customer.document"},
		{"customer document length", with("customer.document", "1234567890"), 400, "document_invalid", "customer.document"},
		{"customer phone invalid", with("customer.phone", "12-34"), 400, "parameter_invalid", "customer.phone"},
	}
	for _, c := range cases {
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: s.TestKey, Body: c.body})
		require.Equal(t, c.status, r.Status, "%s: %s", c.name, r.Body)
		require.Equal(t, c.code, r.ErrorCode(t), c.name)
		require.Equal(t, c.param, r.ErrorParam(t), c.name)
		require.Equal(t, "invalid_request_error", r.JSON(t)["error"].(map[string]any)["type"], c.name)
	}
	var n int
	require.NoError(t, s.DB.NewRaw("SELECT count(*) FROM payments").Scan(context.Background(), &n))
	require.Zero(t, n, "no invalid request stored anything")
}

func TestCreatePaymentOptionalFieldsAndDefaults(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	p := s.CreatePayment(map[string]any{"amount_cents": 1, "customer": nil, "metadata": nil, "description": nil})
	require.Nil(t, p["customer"])
	require.Nil(t, p["external_id"])
	require.Nil(t, p["description"])
	require.Equal(t, map[string]any{}, p["metadata"])
	require.Equal(t, float64(0), p["fee_cents"], "0.99% of 1 cent rounds to 0")
	created := mustTime(t, p["created_at"])
	expires := mustTime(t, p["expires_at"])
	require.Equal(t, 86400.0, expires.Sub(created).Seconds(), "default expiry is 24h")

	cnpjBody := with("customer.document", "11.222.333/0001-81")
	cnpjBody["external_id"] = "cnpj"
	cnpj := s.CreatePayment(cnpjBody)
	require.Equal(t, "11222333000181", cnpj["customer"].(map[string]any)["document"])
	alnumBody := with("customer.document", "12.abc.345/01de-35")
	alnumBody["external_id"] = "cnpj-alfanumerico"
	alnum := s.CreatePayment(alnumBody)
	require.Equal(t, "12ABC34501DE35", alnum["customer"].(map[string]any)["document"], "an alphanumeric CNPJ, in upper case")
	noPhoneBody := with("customer.phone", nil)
	noPhoneBody["external_id"] = "no-phone"
	noPhone := s.CreatePayment(noPhoneBody)
	require.Nil(t, noPhone["customer"].(map[string]any)["phone"])
}

func TestCreatePaymentRequiresJSONContentType(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: s.TestKey, Body: `{"amount_cents":100}`,
		Headers: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}})
	require.Equal(t, http.StatusUnsupportedMediaType, r.Status)
	require.Equal(t, "content_type_unsupported", r.ErrorCode(t))
	r = s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: s.TestKey, Body: `{"amount_cents":100}`,
		Headers: map[string]string{"Content-Type": "application/json; charset=utf-8"}})
	require.Equal(t, http.StatusCreated, r.Status)
}

func TestCreatePaymentBodyTooLarge(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	// A raw request: the server answers from the Content-Length alone,
	// before any of the body (twice the limit) is sent.
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "POST /api/v1/payments HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n", s.TestKey, 2*web.DefaultBodyLimit)
	require.NoError(t, err)
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	r := &webtest.Response{Status: res.StatusCode, Header: res.Header, Body: body}
	webtest.ValidateResponse(t, "POST", "/api/v1/payments", r)
	require.Equal(t, http.StatusRequestEntityTooLarge, r.Status)
	require.Equal(t, "body_too_large", r.ErrorCode(t))
}

// TestMalformedBodiesFuzzCorpus sends 1,000 malformed bodies derived from a
// valid one. Every answer must be a 4xx in the error shape (Do checks the
// shape against the OpenAPI document), and nothing stored may change.
func TestMalformedBodiesFuzzCorpus(t *testing.T) {
	t.Parallel()
	s := webtest.New(t)
	kept := s.CreatePayment(map[string]any{"amount_cents": 500, "external_id": "kept"})
	valid, err := json.Marshal(validCreateBody())
	require.NoError(t, err)
	corpus := malformedCorpus(valid, 1000)
	require.Len(t, corpus, 1000)
	for i, body := range corpus {
		r := s.Do(webtest.Request{Method: "POST", Path: "/api/v1/payments", Key: s.TestKey, Body: body})
		if r.Status == http.StatusCreated {
			continue // a mutation can land on a still-valid body; it must then be a real payment
		}
		require.True(t, r.Status >= 400 && r.Status < 500, "body %d answered %d: %q -> %s", i, r.Status, body, r.Body)
	}
	again := s.Do(webtest.Request{Method: "GET", Path: "/api/v1/payments/kept", Key: s.TestKey})
	require.Equal(t, http.StatusOK, again.Status)
	require.Equal(t, kept["updated_at"], again.JSON(t)["updated_at"])
	require.Equal(t, "pending", again.JSON(t)["status"])
}

// malformedCorpus derives n deterministic malformed bodies from valid:
// truncations, byte flips, type swaps, hostile values and structural junk.
func malformedCorpus(valid []byte, n int) [][]byte {
	rng := rand.New(rand.NewPCG(42, 7))
	hostile := []string{
		`null`, `true`, `"x"`, `-1`, `0`, `1.5`, `1e400`, `"\u0000"`, `[]`, `{}`, `[[[[[[[[]]]]]]]]`,
		`"` + strings.Repeat("A", 5000) + `"`, `99999999999999999999999999`, `"\ud800"`, `{"$ne": 1}`, `"'; DROP TABLE payments; --"`,
	}
	fields := []string{"amount_cents", "description", "external_id", "customer", "metadata", "expires_in"}
	var out [][]byte
	for len(out) < n {
		var body []byte
		switch len(out) % 6 {
		case 0: // truncate
			body = append([]byte(nil), valid[:rng.IntN(len(valid))]...)
		case 1: // flip bytes
			body = append([]byte(nil), valid...)
			for range 1 + rng.IntN(4) {
				body[rng.IntN(len(body))] = byte(rng.IntN(256))
			}
		case 2: // replace one field with a hostile value
			var m map[string]json.RawMessage
			_ = json.Unmarshal(valid, &m)
			m[fields[rng.IntN(len(fields))]] = json.RawMessage(hostile[rng.IntN(len(hostile))])
			body, _ = json.Marshal(m)
		case 3: // hostile customer field
			var m map[string]any
			_ = json.Unmarshal(valid, &m)
			c := m["customer"].(map[string]any)
			keys := []string{"name", "email", "document", "phone"}
			c[keys[rng.IntN(len(keys))]] = json.RawMessage(hostile[rng.IntN(len(hostile))])
			body, _ = json.Marshal(m)
		case 4: // structural junk
			junk := []string{`{`, `}`, `{"amount_cents"}`, `{"amount_cents":}`, `{,}`, `{"a":1,}`, "\xff\xfe", `{"amount_cents": 100`, `"amount_cents"`, ` `}
			body = []byte(junk[rng.IntN(len(junk))] + strings.Repeat(" ", rng.IntN(3)))
		case 5: // invalid UTF-8 and control bytes inside strings
			body = []byte(fmt.Sprintf(`{"amount_cents": %d, "description": "%s", "external_id": "%s"}`,
				rng.IntN(200)-50, string([]byte{0xc3, byte(rng.IntN(256))}), string([]byte{byte(rng.IntN(32))})))
		}
		out = append(out, body)
	}
	return out
}
