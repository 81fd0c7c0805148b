package jsonw

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// DecodeStringMap decodes a JSON object of strings: metadata as PostgreSQL's
// jsonb prints it. Without escapes (the usual case) the keys and values are
// sliced out directly; anything else is left to encoding/json, whose
// reflection was a sixteenth of a payment read's CPU.
func DecodeStringMap(b []byte) (map[string]string, error) {
	if m, ok := decodeSimpleStringMap(b); ok {
		return m, nil
	}
	var m map[string]string
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// decodeSimpleStringMap decodes b when it is an object whose keys and
// values are strings without a backslash; ok is false otherwise.
func decodeSimpleStringMap(b []byte) (m map[string]string, ok bool) {
	if bytes.IndexByte(b, '\\') >= 0 {
		return nil, false
	}
	i := skipSpace(b, 0)
	if i == len(b) || b[i] != '{' {
		return nil, false
	}
	m = map[string]string{}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return m, skipSpace(b, i+1) == len(b)
	}
	for {
		var k, v string
		if k, i, ok = simpleString(b, i); !ok {
			return nil, false
		}
		if i = skipSpace(b, i); i == len(b) || b[i] != ':' {
			return nil, false
		}
		if v, i, ok = simpleString(b, skipSpace(b, i+1)); !ok {
			return nil, false
		}
		m[k] = v
		if i = skipSpace(b, i); i == len(b) {
			return nil, false
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return m, skipSpace(b, i+1) == len(b)
		default:
			return nil, false
		}
	}
}

// simpleString reads the string starting at b[i] (no escapes in it) and
// returns it with the index after its closing quote. Control characters
// (which JSON forbids unescaped) and invalid UTF-8 are not simple.
func simpleString(b []byte, i int) (string, int, bool) {
	if i == len(b) || b[i] != '"' {
		return "", i, false
	}
	end := bytes.IndexByte(b[i+1:], '"')
	if end < 0 {
		return "", i, false
	}
	s := b[i+1 : i+1+end]
	for _, c := range s {
		if c < 0x20 {
			return "", i, false
		}
	}
	if !utf8.Valid(s) { // encoding/json would substitute U+FFFD
		return "", i, false
	}
	return string(s), i + 2 + end, true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}
