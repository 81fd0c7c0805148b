package jsonw

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// DecodeStringMap must agree with encoding/json on every input: the same
// map, or an error in both.
func TestDecodeStringMapMatchesEncodingJSON(t *testing.T) {
	inputs := []string{
		`{}`, ` { } `, `{"order": "bench"}`, `{"a":"1","b":"2"}`, `{"a": "1", "a": "2"}`, `{"": ""}`,
		`{"é": "ação 😀"}`, `{"k": "line\nbreak"}`, `{"k": "quote \" inside"}`, `{"k": "\u00e9"}`,
		`{"k": 1}`, `{"k": null}`, `null`, `[]`, `{"k": "v",}`, `{"k" "v"}`, `{"k": "v"} x`, `{"k": "v"`,
		"{\"k\": \"raw\ttab\"}", "{\"k\": \"bad \xff\"}", `{"k": "v", "l": {"x": "y"}}`, ``, `{`, `{"k`, `{"k":`,
	}
	rng := rand.New(rand.NewPCG(3, 5))
	alphabet := `{}":, ab\é` + "\t\xff"
	for range 3000 {
		var sb strings.Builder
		for range rng.IntN(16) {
			sb.WriteByte(alphabet[rng.IntN(len(alphabet))])
		}
		inputs = append(inputs, sb.String(), `{"`+sb.String()+`": "v"}`, `{"k": "`+sb.String()+`"}`)
	}
	for _, in := range inputs {
		var want map[string]string
		wantErr := json.Unmarshal([]byte(in), &want)
		got, err := DecodeStringMap([]byte(in))
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%q: error %v, encoding/json's %v", in, err, wantErr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: got %#v, encoding/json %#v", in, got, want)
		}
	}
	if _, ok := decodeSimpleStringMap([]byte(`{"order": "bench", "x": "y"}`)); !ok {
		t.Fatal("jsonb's own output did not take the direct path")
	}
}
