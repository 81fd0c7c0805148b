package request

import (
	"bytes"
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/gofiber/fiber/v2"

	"payments/handlers/reply"
	"payments/store"
)

// RequireJSON refuses bodies that do not declare themselves JSON.
func RequireJSON(c *fiber.Ctx) *reply.Error {
	mediaType, _, err := mime.ParseMediaType(c.Get(fiber.HeaderContentType))
	if err != nil || mediaType != fiber.MIMEApplicationJSON {
		return reply.InvalidRequest(http.StatusUnsupportedMediaType, "content_type_unsupported",
			"Send the request body as JSON with the header Content-Type: application/json.")
	}
	return nil
}

// Body reads a JSON request body that must be an object with only the
// allowed fields.
func Body(c *fiber.Ctx, allowed ...string) (Object, *reply.Error) {
	if apiErr := RequireJSON(c); apiErr != nil {
		return Object{}, apiErr
	}
	o, apiErr := DecodeObject(c.Body())
	if apiErr != nil {
		return Object{}, apiErr
	}
	return o, o.RejectUnknown(allowed...)
}

// OptionalBody reads the body of a POST whose parameters are all optional:
// an empty body stands for {}; any other is read as Body reads it.
func OptionalBody(c *fiber.Ctx, allowed ...string) (Object, *reply.Error) {
	if len(c.Body()) == 0 {
		return Object{fields: map[string]json.RawMessage{}}, nil
	}
	return Body(c, allowed...)
}

// Object is a decoded JSON object whose fields are read one by one, so
// every problem names its parameter and unknown fields are refused.
type Object struct {
	prefix string // "" at the top level, "customer." inside customer
	fields map[string]json.RawMessage
}

// DecodeObject decodes body, which must be a JSON object.
func DecodeObject(body []byte) (Object, *reply.Error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return Object{}, reply.InvalidParam("invalid_json", "", "The request body must be a JSON object.")
	}
	// JSON is UTF-8 (RFC 8259); encoding/json would turn each bad byte into
	// U+FFFD and store what the client never sent.
	if !utf8.Valid(body) {
		return Object{}, reply.InvalidParam("invalid_json", "", "The request body is not valid UTF-8.")
	}
	// The members' values are slices of this copy: the body's buffer is
	// the server's again once the handler returns.
	fields, err := splitObject(bytes.Clone(body))
	if err != nil {
		var syntax *jsontext.SyntacticError
		if errors.As(err, &syntax) {
			return Object{}, reply.InvalidParam("invalid_json", "", "The request body is not valid JSON (error at byte %d).", syntax.ByteOffset)
		}
		return Object{}, reply.InvalidParam("invalid_json", "", "The request body must be a JSON object.")
	}
	return Object{fields: fields}, nil
}

// Param is the full name of field name, as errors report it.
func (o Object) Param(name string) string { return o.prefix + name }

// Raw is field name's JSON text.
func (o Object) Raw(name string) json.RawMessage { return o.fields[name] }

// Present is false for absent fields and explicit nulls alike.
func (o Object) Present(name string) bool {
	raw, ok := o.fields[name]
	return ok && !isNull(raw)
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// RejectUnknown refuses a field other than allowed.
func (o Object) RejectUnknown(allowed ...string) *reply.Error {
	var unknown []string
	for name := range o.fields {
		if !slices.Contains(allowed, name) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	return reply.InvalidParam("parameter_unknown", o.Param(unknown[0]),
		"Received unknown parameter: %s. Allowed parameters: %s.", o.Param(unknown[0]), strings.Join(allowed, ", "))
}

// Missing is the error for a required field that is absent.
func (o Object) Missing(name string) *reply.Error {
	return reply.InvalidParam("parameter_missing", o.Param(name), "Missing required parameter: %s.", o.Param(name))
}

// WrongType is the error for a field of the wrong JSON type.
func (o Object) WrongType(name, want string) *reply.Error {
	return reply.InvalidParam("parameter_invalid_type", o.Param(name), "Invalid type for %s: expected %s.", o.Param(name), want)
}

// errIntRange marks an integer literal too large for int64.
var errIntRange = errors.New("integer out of range")

// IntegerBounded reads an integer field; fractions, exponents and strings are
// type errors, and values outside lo..hi (even beyond int64) are reported
// through tooSmall/tooLarge.
func (o Object) IntegerBounded(name string, lo, hi int64, tooSmall, tooLarge func() *reply.Error) (int64, *reply.Error) {
	raw := bytes.TrimSpace(o.fields[name])
	n, err := parseJSONInteger(raw)
	switch {
	case errors.Is(err, errIntRange) && raw[0] == '-':
		return 0, tooSmall()
	case errors.Is(err, errIntRange):
		return 0, tooLarge()
	case err != nil:
		return 0, o.WrongType(name, "an integer")
	case n < lo:
		return 0, tooSmall()
	case n > hi:
		return 0, tooLarge()
	}
	return n, nil
}

func parseJSONInteger(raw []byte) (int64, error) {
	if len(raw) == 0 || !(raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') {
		return 0, errors.New("not a number")
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		var numErr *strconv.NumError
		if errors.As(err, &numErr) && errors.Is(numErr.Err, strconv.ErrRange) {
			return 0, errIntRange
		}
		return 0, err
	}
	return n, nil
}

// Str reads a string field of at most maxRunes characters. NUL characters are
// refused: PostgreSQL cannot store them in text.
func (o Object) Str(name string, maxRunes int) (string, *reply.Error) {
	s, ok := unquote(o.fields[name])
	if !ok {
		return "", o.WrongType(name, "a string")
	}
	if strings.ContainsRune(s, 0) {
		return "", reply.InvalidParam("parameter_invalid", o.Param(name), "%s must not contain NUL characters.", o.Param(name))
	}
	if utf8.RuneCountInString(s) > maxRunes {
		return "", reply.InvalidParam("parameter_too_long", o.Param(name), "%s must be at most %d characters.", o.Param(name), maxRunes)
	}
	return s, nil
}

// Enum reads a string field that must be one of values.
func (o Object) Enum(name string, values []string) (string, *reply.Error) {
	s, apiErr := o.Str(name, 64)
	if apiErr != nil {
		return "", apiErr
	}
	if !slices.Contains(values, s) {
		return "", reply.InvalidParam("parameter_invalid", o.Param(name), "%s must be one of %v.", o.Param(name), values)
	}
	return s, nil
}

// Bool reads a boolean field.
func (o Object) Bool(name string) (bool, *reply.Error) {
	switch string(o.fields[name]) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, o.WrongType(name, "a boolean")
}

// Object reads a nested object field.
func (o Object) Object(name string) (Object, *reply.Error) {
	raw := o.fields[name]
	if len(raw) == 0 || raw[0] != '{' {
		return Object{}, o.WrongType(name, "an object")
	}
	fields, err := splitObject(raw)
	if err != nil {
		return Object{}, o.WrongType(name, "an object")
	}
	return Object{prefix: o.Param(name) + ".", fields: fields}, nil
}

// Fields are the object's field names.
func (o Object) Fields() []string {
	names := make([]string, 0, len(o.fields))
	for k := range o.fields {
		names = append(names, k)
	}
	return names
}

// Field is the object holding field name alone, under the given parameter
// name: for entries of a map (metadata[key]) read as fields of their own.
func (o Object) Field(name, param string) Object {
	return Object{fields: map[string]json.RawMessage{param: o.fields[name]}}
}

// Array reads an array of objects, each named name[i] in errors.
func (o Object) Array(name string) ([]Object, *reply.Error) {
	raw := o.fields[name]
	if len(raw) == 0 || raw[0] != '[' {
		return nil, o.WrongType(name, "an array")
	}
	objects, bad, err := splitArray(raw)
	switch {
	case err != nil:
		return nil, o.WrongType(name, "an array of objects")
	case bad >= 0:
		param := o.Param(name) + "[" + strconv.Itoa(bad) + "]"
		return nil, reply.InvalidParam("parameter_invalid_type", param, "Invalid type for %s: expected an object.", param)
	}
	out := make([]Object, len(objects))
	for i, fields := range objects {
		out[i] = Object{prefix: o.Param(name) + "[" + strconv.Itoa(i) + "].", fields: fields}
	}
	return out, nil
}

// ClaimedCents reads a dispute's claimed amount: cents from 1 to
// store.MaxAmountCents.
func (o Object) ClaimedCents(name string) (int64, *reply.Error) {
	return o.IntegerBounded(name, 1, store.MaxAmountCents,
		func() *reply.Error {
			return reply.InvalidParam("parameter_invalid", o.Param(name), "%s must be at least 1.", o.Param(name))
		},
		func() *reply.Error {
			return reply.InvalidParam("parameter_invalid", o.Param(name), "%s must be at most %d.", o.Param(name), int64(store.MaxAmountCents))
		})
}
