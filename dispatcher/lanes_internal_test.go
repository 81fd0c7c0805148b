package dispatcher

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"payments/store"
)

// A timeout moves a webhook to the slow lane at once; answers averaging
// 500 ms or less bring it back; each move is reported once, even to a
// worker holding the webhook as its claim read it before the move.
func TestLanesMoveOnAverages(t *testing.T) {
	l := newLanes()
	w := &store.Webhook{ID: "wh_1"}
	slow, changed := l.note(w, 10*time.Millisecond)
	require.Equal(t, [2]bool{false, false}, [2]bool{slow, changed}, "fast and staying")
	slow, changed = l.note(w, AttemptTimeout)
	require.Equal(t, [2]bool{true, true}, [2]bool{slow, changed}, "a timeout moves it")
	l.wrote(w.ID, true)
	slow, changed = l.note(w, AttemptTimeout)
	require.Equal(t, [2]bool{true, false}, [2]bool{slow, changed}, "moved once, though w still reads fast")
	for i := range 4 {
		slow, changed = l.note(w, 10*time.Millisecond)
		require.Equal(t, [2]bool{true, false}, [2]bool{slow, changed}, "answer %d: the average is still above 500 ms", i+1)
	}
	slow, changed = l.note(w, 10*time.Millisecond)
	require.Equal(t, [2]bool{false, true}, [2]bool{slow, changed}, "the fifth fast answer brings it back")
	l.wrote(w.ID, false)
	slow, changed = l.note(w, 10*time.Millisecond)
	require.Equal(t, [2]bool{false, false}, [2]bool{slow, changed})

	// Another dispatcher's move, read from the table by a claim: a slow
	// webhook new to this one needs answers, not one, to come back.
	other := &store.Webhook{ID: "wh_2", SlowSince: new(time.Now())}
	slow, changed = l.note(other, 10*time.Millisecond)
	require.Equal(t, [2]bool{true, false}, [2]bool{slow, changed})
}
