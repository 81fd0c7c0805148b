package web

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// obj is a JSON object whose keys keep the order they are given in, so the
// generated document reads top-down (encoding/json sorts a map's keys).
type obj []field

type field struct {
	key   string
	value any
}

// o builds an obj from alternating keys and values.
func o(kv ...any) obj {
	if len(kv)%2 != 0 {
		panic(fmt.Sprintf("openapi: odd key/value list %v", kv))
	}
	out := make(obj, 0, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		out = append(out, field{kv[i].(string), kv[i+1]})
	}
	return out
}

// with returns a copy of m with kv added (or replaced).
func (m obj) with(kv ...any) obj {
	out := append(obj(nil), m...)
	for _, f := range o(kv...) {
		replaced := false
		for i := range out {
			if out[i].key == f.key {
				out[i], replaced = f, true
			}
		}
		if !replaced {
			out = append(out, f)
		}
	}
	return out
}

// MarshalJSON writes the fields in order.
func (m obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range m {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.key)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(f.value)
		if err != nil {
			return nil, fmt.Errorf("openapi: %s: %w", f.key, err)
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// keys are o's keys in order.
func (o obj) keys() []string {
	out := make([]string, len(o))
	for i, f := range o {
		out[i] = f.key
	}
	return out
}
