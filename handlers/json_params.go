package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// jsonObject is a decoded JSON object whose fields are read one by one, so
// every problem names its parameter and unknown fields are refused.
type jsonObject struct {
	prefix string // "" at the top level, "customer." inside customer
	fields map[string]json.RawMessage
}

func decodeBody(body []byte) (jsonObject, *Error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return jsonObject{}, InvalidParam("invalid_json", "", "The request body must be a JSON object.")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return jsonObject{}, InvalidParam("invalid_json", "", "The request body is not valid JSON (error at byte %d).", syntax.Offset)
		}
		return jsonObject{}, InvalidParam("invalid_json", "", "The request body must be a JSON object.")
	}
	if fields == nil { // the body was `null`
		return jsonObject{}, InvalidParam("invalid_json", "", "The request body must be a JSON object.")
	}
	return jsonObject{fields: fields}, nil
}

func (o jsonObject) param(name string) string { return o.prefix + name }

// present is false for absent fields and explicit nulls alike.
func (o jsonObject) present(name string) bool {
	raw, ok := o.fields[name]
	return ok && !isNull(raw)
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

func (o jsonObject) rejectUnknown(allowed ...string) *Error {
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
	return InvalidParam("parameter_unknown", o.param(unknown[0]),
		"Received unknown parameter: %s. Allowed parameters: %s.", o.param(unknown[0]), strings.Join(allowed, ", "))
}

func (o jsonObject) missing(name string) *Error {
	return InvalidParam("parameter_missing", o.param(name), "Missing required parameter: %s.", o.param(name))
}

func (o jsonObject) wrongType(name, want string) *Error {
	return InvalidParam("parameter_invalid_type", o.param(name), "Invalid type for %s: expected %s.", o.param(name), want)
}

// errIntRange marks an integer literal too large for int64.
var errIntRange = errors.New("integer out of range")

// integerBounded reads an integer field; fractions, exponents and strings are
// type errors, and values outside lo..hi (even beyond int64) are reported
// through tooSmall/tooLarge.
func (o jsonObject) integerBounded(name string, lo, hi int64, tooSmall, tooLarge func() *Error) (int64, *Error) {
	raw := bytes.TrimSpace(o.fields[name])
	n, err := parseJSONInteger(raw)
	switch {
	case errors.Is(err, errIntRange) && raw[0] == '-':
		return 0, tooSmall()
	case errors.Is(err, errIntRange):
		return 0, tooLarge()
	case err != nil:
		return 0, o.wrongType(name, "an integer")
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

// str reads a string field of at most maxRunes characters. NUL characters are
// refused: PostgreSQL cannot store them in text.
func (o jsonObject) str(name string, maxRunes int) (string, *Error) {
	var s string
	if err := json.Unmarshal(o.fields[name], &s); err != nil {
		return "", o.wrongType(name, "a string")
	}
	if strings.ContainsRune(s, 0) {
		return "", InvalidParam("parameter_invalid", o.param(name), "%s must not contain NUL characters.", o.param(name))
	}
	if utf8.RuneCountInString(s) > maxRunes {
		return "", InvalidParam("parameter_too_long", o.param(name), "%s must be at most %d characters.", o.param(name), maxRunes)
	}
	return s, nil
}

// object reads a nested object field.
func (o jsonObject) object(name string) (jsonObject, *Error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(o.fields[name], &fields); err != nil || fields == nil {
		return jsonObject{}, o.wrongType(name, "an object")
	}
	return jsonObject{prefix: o.param(name) + ".", fields: fields}, nil
}
