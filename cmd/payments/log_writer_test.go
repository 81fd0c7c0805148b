package main

import (
	"fmt"
	"payments/internal/testbin"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestLogWriterDeliversWholeLinesInTimeAndOnClose(t *testing.T) {
	held := &testbin.Buffer{}
	slow := newLogWriter(held, time.Hour)
	slow.Start()
	_, err := slow.Write([]byte("held\n"))
	require.NoError(t, err)
	require.Empty(t, held.String(), "lines wait for the next flush")
	slow.Stop()
	require.Equal(t, "held\n", held.String(), "Close writes what waits")

	out := &testbin.Buffer{}
	w := newLogWriter(out, 20*time.Millisecond)
	w.Start()
	_, err = w.Write([]byte("first\n"))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return out.String() == "first\n" }, 2*time.Second, 5*time.Millisecond)

	// Many writers at once: every line arrives whole, each writer's in order.
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 2000 {
				fmt.Fprintf(w, "g%d line %04d %s\n", g, i, strings.Repeat("x", 40))
			}
		})
	}
	wg.Wait()
	w.Stop()
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	require.Len(t, lines, 1+8*2000, "Close writes what is left")
	next := map[string]int{}
	for _, line := range lines[1:] {
		var g string
		var i int
		_, err := fmt.Sscanf(line, "%s line %d", &g, &i)
		require.NoError(t, err, line)
		require.Equal(t, next[g], i, "writer %s's lines in order", g)
		require.Len(t, line, len("g0 line 0000 ")+40)
		next[g]++
	}
}
