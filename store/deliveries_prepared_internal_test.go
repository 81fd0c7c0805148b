package store

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"payments/store/jsonw"
)

// The attempt's header maps are rendered by hand for their jsonb columns:
// byte for byte what encoding/json renders, odd bytes and nil values too.
func TestHeadersJSONMatchesEncodingJSON(t *testing.T) {
	strs := []string{"", "application/json", "t=1,v1=ab", "ação 😀", "<script>&", "line\nbreak", "quote \" \\", "bad \xff", "\u2028"}
	rng := rand.New(rand.NewPCG(7, 11))
	pick := func() string { return strs[rng.IntN(len(strs))] }
	for range 300 {
		req, resp := map[string]string{}, map[string][]string{}
		for range rng.IntN(6) {
			req[pick()] = pick()
			var values []string
			if rng.IntN(5) > 0 {
				values = []string{}
				for range rng.IntN(3) {
					values = append(values, pick())
				}
			}
			resp[pick()] = values
		}
		for _, c := range []struct {
			got  []byte
			want any
		}{
			{headersJSON(req, jsonw.AppendStringMap), req},
			{headersJSON(resp, jsonw.AppendStringsMap), resp},
		} {
			want, err := json.Marshal(c.want)
			if err != nil {
				t.Fatal(err)
			}
			if c.got == nil || string(c.got) != string(want) {
				t.Fatalf("got %s, encoding/json %s", c.got, want)
			}
		}
	}
	if headersJSON(map[string]string(nil), jsonw.AppendStringMap) != nil || headersJSON(map[string][]string(nil), jsonw.AppendStringsMap) != nil {
		t.Fatal("no headers are NULL")
	}
}
