package ids_test

import (
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/store/ids"
)

func TestNewIDIsPrefixedUniqueAndTimeOrdered(t *testing.T) {
	t.Parallel()
	var made []string
	seen := map[string]bool{}
	for range 2000 {
		id := ids.New(ids.PrefixEvent)
		require.Regexp(t, `^evt_[0-9A-Za-z]{22}$`, id)
		require.False(t, seen[id])
		seen[id] = true
		made = append(made, id)
	}
	require.True(t, sort.StringsAreSorted(made), "ids sort in creation order")
}

func TestPaymentIDsFollowTheClock(t *testing.T) {
	t.Parallel()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	prev := ids.NewPayment(base)
	require.Equal(t, 7, int(prev.Version()))
	for i := 1; i < 1000; i++ {
		id := ids.NewPayment(base.Add(time.Duration(i) * 300 * time.Microsecond))
		require.Greater(t, id.String(), prev.String(), "later creation sorts later, within one millisecond too")
		prev = id
	}
}
