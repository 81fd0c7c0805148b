package request

import (
	"bytes"
	"encoding/json"
	"errors"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

// A request body's objects are split into their members in one pass
// (jsontext, which validates as it reads): encoding/json's Unmarshal into
// a map scanned each object twice, validating and then decoding, and
// again for each object nested in it, which made reading a charge's body
// most of its handler's own CPU. The members' values are slices of the
// body's one copy (DecodeObject), not copies each.

// decodeOptions read as encoding/json did: of a member repeated, the last
// value counts.
var decodeOptions = jsontext.AllowDuplicateNames(true)

// errNotObject is a value that is valid JSON but not an object.
var errNotObject = errors.New("not a JSON object")

// fieldsReader is a decoder reading straight from a byte slice (a
// bytes.Buffer is read without a copy), pooled: a decoder's state is
// larger than most bodies.
type fieldsReader struct {
	src bytes.Buffer
	dec jsontext.Decoder
}

var fieldsReaders = sync.Pool{New: func() any { return new(fieldsReader) }}

// readerOf is a pooled reader over raw; release gives it back.
func readerOf(raw []byte) *fieldsReader {
	r := fieldsReaders.Get().(*fieldsReader)
	r.src = *bytes.NewBuffer(raw)
	r.dec.Reset(&r.src, decodeOptions)
	return r
}

// release drops the reader's hold on its bytes and pools it.
func (r *fieldsReader) release() {
	r.src = bytes.Buffer{}
	r.dec.Reset(&r.src)
	fieldsReaders.Put(r)
}

// splitObject reads raw, which must be one JSON object and nothing after
// it but whitespace, into its members. A syntax error is a
// *jsontext.SyntacticError; valid JSON that is not an object is
// errNotObject.
func splitObject(raw []byte) (map[string]json.RawMessage, error) {
	r := readerOf(raw)
	defer r.release()
	if r.dec.PeekKind() != '{' {
		// Anything else is refused; which refusal depends on whether it is
		// JSON at all.
		if _, err := r.dec.ReadValue(); err != nil {
			return nil, err
		}
		if err := endOfInput(raw, r.dec.InputOffset()); err != nil {
			return nil, err
		}
		return nil, errNotObject
	}
	fields, err := readMembers(&r.dec)
	if err != nil {
		return nil, err
	}
	return fields, endOfInput(raw, r.dec.InputOffset())
}

// readMembers reads the object at the decoder's position.
func readMembers(dec *jsontext.Decoder) (map[string]json.RawMessage, error) {
	if _, err := dec.ReadToken(); err != nil { // {
		return nil, err
	}
	fields := make(map[string]json.RawMessage, 8)
	for dec.PeekKind() != '}' {
		token, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		name := token.String() // before the next read voids the token
		value, err := dec.ReadValue()
		if err != nil {
			return nil, err
		}
		fields[name] = json.RawMessage(value)
	}
	if _, err := dec.ReadToken(); err != nil { // }
		return nil, err
	}
	return fields, nil
}

// endOfInput refuses anything but JSON's whitespace after the value that
// ended at offset (the decoder reads a stream of values; a body is one).
func endOfInput(raw []byte, offset int64) error {
	for i := offset; i < int64(len(raw)); i++ {
		switch raw[i] {
		case ' ', '\t', '\n', '\r':
		default:
			return &jsontext.SyntacticError{ByteOffset: i, Err: errors.New("invalid character after top-level value")}
		}
	}
	return nil
}

// splitArray reads raw, a JSON array validated already (a member of a
// decoded object), into its items' members: bad is the index of the first
// item that is not an object (-1 when each is one).
func splitArray(raw []byte) (items []map[string]json.RawMessage, bad int, err error) {
	r := readerOf(raw)
	defer r.release()
	if _, err := r.dec.ReadToken(); err != nil { // [
		return nil, -1, err
	}
	items = make([]map[string]json.RawMessage, 0, 4)
	for kind := r.dec.PeekKind(); kind != ']'; kind = r.dec.PeekKind() {
		if kind != '{' {
			return nil, len(items), nil
		}
		fields, err := readMembers(&r.dec)
		if err != nil {
			return nil, -1, err
		}
		items = append(items, fields)
	}
	return items, -1, nil
}

// unquote is the string raw holds, when raw is a JSON string (validated
// already: a member of a decoded object). Without escapes it is its
// bytes between the quotes.
func unquote(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), true
	}
	s, err := jsontext.AppendUnquote(nil, raw)
	if err != nil {
		return "", false
	}
	return string(s), true
}
