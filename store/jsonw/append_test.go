package jsonw

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestAppendTimeFormatIsTheLayout(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	zones := []*time.Location{time.UTC, time.FixedZone("BRT", -3*3600), time.FixedZone("NPT", 5*3600+45*60)}
	times := []time.Time{{}, time.Date(9999, 12, 31, 23, 59, 59, 999_999_999, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 2, 3, 4, 5, 6, 7_000_000, time.UTC)}
	for range 2000 {
		times = append(times, time.Unix(rng.Int64N(1<<36)-1<<35, rng.Int64N(1e9)).In(zones[rng.IntN(len(zones))]))
	}
	for _, at := range times {
		require.Equal(t, at.UTC().Format(TimeFormat), string(appendTimeFormat(nil, at)), "%v", at)
	}
}
