package main

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A receiver that goes down and comes back every few seconds, behind four
// webhooks and two dispatchers, gets each answer it gave once, and every
// outcome is recorded: at each return, successes end their webhooks'
// failure streaks side by side, and two finishes healing the same webhooks
// in different orders deadlocked. The finish PostgreSQL aborted was not
// recorded, and its successes, answered, were sent again when their leases
// ran out (the fault suite saw that, rarely, as its receiver came back).
// Deliveries that failed twice wait their two minutes: this test counts
// doubles, not arrivals.
func TestAFlappingReceiverGetsEachAnswerOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("the flapping receiver takes about 40 s")
	}
	t.Parallel()
	bin, pg, env, account := startRig(t, "Intermitente")

	recv := newCountingReceiver(t)
	api := startProcess(t, bin, env, "--web")
	dispatchers := []*process{startProcess(t, bin, env, "--dispatcher"), startProcess(t, bin, env, "--dispatcher")}
	api.waitHealthy(t)
	for i := range 4 {
		status := api.post(t, account.Key, "/api/v1/webhooks", map[string]any{"url": recv.url, "name": fmt.Sprint(i),
			"events": []string{"payment.created"}}, "", nil)
		require.Equal(t, http.StatusCreated, status)
	}

	stop := make(chan struct{})
	var loaders sync.WaitGroup
	for i := range 4 {
		loaders.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				api.create(t, account.Key, fmt.Sprintf("flap-%d-%d", i, n))
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
	for range 8 {
		time.Sleep(2 * time.Second)
		recv.setDown(true)
		time.Sleep(2 * time.Second)
		recv.setDown(false)
	}
	close(stop)
	loaders.Wait()
	time.Sleep(5 * time.Second)

	for id, first := range recv.duplicates() {
		t.Errorf("event %s arrived twice, first at %s; its deliveries and attempts:\n%s%s",
			id, first.Format(time.RFC3339Nano), pg.deliveriesOf(t, []string{id}), pg.attemptsOf(t, id))
	}
	for _, d := range dispatchers {
		require.NotContains(t, d.Logs.String(), "dispatcher: record outcome", "every outcome recorded:\n%s", complaints(dispatchers...))
	}
	// It did flap: attempts failed, and successes ended streaks after them.
	out, err := pg.psql("-tAc", `SELECT count(*) FILTER (WHERE response_status = 503), count(*) FILTER (WHERE response_status = 200)
		FROM delivery_attempts`)
	require.NoError(t, err, out)
	counts := strings.Split(strings.TrimSpace(out), "|")
	require.Len(t, counts, 2, out)
	require.NotEqual(t, "0", counts[0], "no attempt failed")
	require.NotEqual(t, "0", counts[1], "no attempt succeeded")
	t.Logf("flapping receiver: %s attempts answered 503, %s answered 200, no answer twice", counts[0], counts[1])
}
