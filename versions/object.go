package versions

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Object is a JSON object a converter edits: its members keep their order
// and their bytes (numbers are never rounded through float64), so an
// older version's answer differs from the current one only where a
// change says.
type Object struct {
	keys   []string
	values map[string][]byte
}

// parseObject reads a JSON object.
func parseObject(b []byte) (*Object, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("versions: not a JSON object")
	}
	o := &Object{values: map[string][]byte{}}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, err
		}
		if _, seen := o.values[key]; !seen {
			o.keys = append(o.keys, key)
		}
		o.values[key] = value
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return o, nil
}

// Has says the object has member key.
func (o *Object) Has(key string) bool { _, ok := o.values[key]; return ok }

// Set sets member key to value's JSON: in its place when it is there, last
// when it is new.
func (o *Object) Set(key string, value any) error {
	b, err := json.Marshal(value)
	if err != nil {
		return err
	}
	if !o.Has(key) {
		o.keys = append(o.keys, key)
	}
	o.values[key] = b
	return nil
}

// MarshalJSON writes the members in their order.
func (o *Object) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, k := range o.keys {
		if i > 0 {
			b = append(b, ',')
		}
		name, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, name...), ':'), o.values[k]...)
	}
	return append(b, '}'), nil
}
