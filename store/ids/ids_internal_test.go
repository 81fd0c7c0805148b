package ids

import (
	"crypto/rand"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
)

// The 64-bit-halves encoder must give exactly the digits of the 128-bit number.
func TestEncodeBase62MatchesBigIntegerDigits(t *testing.T) {
	t.Parallel()
	reference := func(b [16]byte) string {
		n := new(big.Int).SetBytes(b[:])
		out := make([]byte, 22)
		for i := 21; i >= 0; i-- {
			var mod big.Int
			n.DivMod(n, big.NewInt(62), &mod)
			out[i] = base62Alphabet[mod.Int64()]
		}
		return string(out)
	}
	inputs := [][16]byte{{}, {15: 1}, {0: 0xff, 1: 0xff, 2: 0xff, 3: 0xff, 4: 0xff, 5: 0xff, 6: 0xff, 7: 0xff, 8: 0xff,
		9: 0xff, 10: 0xff, 11: 0xff, 12: 0xff, 13: 0xff, 14: 0xff, 15: 0xff}}
	for range 10_000 {
		var b [16]byte
		_, _ = rand.Read(b[:])
		inputs = append(inputs, b)
	}
	for _, b := range inputs {
		require.Equal(t, reference(b), encodeBase62(b), "%x", b)
	}
}
