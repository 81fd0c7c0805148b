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

// TestASuccessBatchRendersHeadersIntoItsArena: finishSuccessesArgs renders
// every attempt's header maps as headersJSON does, into the arena it is
// given (a request's headers after the previous one's, none as NULL), so a
// batch on an arena kept from the one before allocates its arrays and not
// its headers' JSON again.
func TestASuccessBatchRendersHeadersIntoItsArena(t *testing.T) {
	req := map[string]string{"content-type": "application/json", "webhook-id": "evt_0356PA9rDoQjusDXK7J1zk",
		"webhook-signature": "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=", "user-agent": "payments-webhooks/1.0"}
	resp := map[string][]string{"Content-Length": {"0"}, "Date": {"Mon, 30 Nov 2026 06:00:00 GMT"}}
	batch := make([]Success, 32)
	var rendered int
	for i := range batch {
		a := &DeliveryAttempt{RequestHeaders: req, ResponseHeaders: resp}
		if i == 5 {
			a.ResponseHeaders = nil // no answer read
		}
		batch[i] = Success{Delivery: &Delivery{}, Attempt: a}
		rendered += len(headersJSON(a.RequestHeaders, jsonw.AppendStringMap)) + len(headersJSON(a.ResponseHeaders, jsonw.AppendStringsMap))
	}
	args, arena := finishSuccessesArgs(batch, nil)
	if len(arena) != rendered {
		t.Fatalf("the arena holds %d bytes, the headers' JSON %d", len(arena), rendered)
	}
	for i, s := range batch {
		got := [2][]byte{args[7].([][]byte)[i], args[10].([][]byte)[i]}
		want := [2][]byte{headersJSON(s.Attempt.RequestHeaders, jsonw.AppendStringMap), headersJSON(s.Attempt.ResponseHeaders, jsonw.AppendStringsMap)}
		for k := range got {
			if (got[k] == nil) != (want[k] == nil) || string(got[k]) != string(want[k]) {
				t.Fatalf("success %d, map %d: %q, want %q", i, k, got[k], want[k])
			}
		}
	}
	allocated := func(kept bool) int64 {
		return testing.Benchmark(func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if kept {
					_, arena = finishSuccessesArgs(batch, arena[:0])
				} else {
					finishSuccessesArgs(batch, nil)
				}
			}
		}).AllocedBytesPerOp()
	}
	onKept, onNone := allocated(true), allocated(false)
	t.Logf("a batch of 32 allocates %d bytes on a kept arena, %d on none; its headers' JSON is %d", onKept, onNone, rendered)
	if onNone-onKept < int64(rendered) {
		t.Errorf("a kept arena saves %d bytes a batch, less than its headers' JSON (%d)", onNone-onKept, rendered)
	}
}
