package ids_test

import (
	"bytes"
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

// A payment made in a window of time has an id within the window's floor
// and ceiling; one made a millisecond outside does not.
func TestPaymentIDBoundsHoldTheWindow(t *testing.T) {
	from := time.Date(2026, 9, 1, 3, 0, 0, 0, time.UTC)
	to := from.Add(time.Hour)
	floor, ceiling := ids.PaymentFloor(from), ids.PaymentCeiling(to)
	in := func(at time.Time) bool {
		id := ids.NewPayment(at)
		return bytes.Compare(id[:], floor[:]) >= 0 && bytes.Compare(id[:], ceiling[:]) <= 0
	}
	for _, at := range []time.Time{from, from.Add(time.Nanosecond), to, to.Add(999 * time.Microsecond), from.Add(30 * time.Minute)} {
		if !in(at) {
			t.Fatalf("%s is in the window but its id is not", at)
		}
	}
	for _, at := range []time.Time{from.Add(-time.Millisecond), to.Add(time.Millisecond)} {
		if in(at) {
			t.Fatalf("%s is outside the window but its id is in", at)
		}
	}
}
