package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"payments/store"
)

// benchNoisyNeighbour measures one account's webhook latency alone, then
// beside another account whose five webhooks' receiver never answers (each
// attempt runs to its timeout) with 400 deliveries queued: B's p50 and p99
// should barely move (the dispatcher shares its workers among accounts and
// keeps slow webhooks in a lane of their own). A is the run's account; B is
// made here.
func benchNoisyNeighbour(ctx context.Context, api *apiClient, pool *pgxpool.Pool, st *store.Store, m *meter, recv *receiver,
	accountA string, snapshot []byte, phase time.Duration,
) error {
	const rate = 50
	n := rate * int(phase/time.Second)
	_, keyB, err := newBenchAccount(ctx, st, "Loja Vizinha", "vizinha")
	if err != nil {
		return err
	}
	apiB := newAPIClient(api.base, keyB)
	if _, err := createWebhook(apiB, recv.url+"/b", store.EventPaymentPaid); err != nil {
		return err
	}
	pending := make([]string, 0, 2*n)
	for range 2 * n {
		id, _, err := apiB.create("/api/v1/payments", createBody)
		if err != nil {
			return err
		}
		pending = append(pending, id)
	}

	settle(ctx, pool)
	var alone, beside result
	m.run("noisy neighbour: B alone", func() result { alone, err = benchSteady(apiB, recv, pending[:n], rate, phase); return alone })
	if err != nil {
		return err
	}

	hang, err := startHangingReceiver()
	if err != nil {
		return err
	}
	defer hang.Close()                    // its connections too: the attempts in flight end at once
	eventType := store.EventPaymentFailed // no other webhook of the run subscribes to it
	hanging := make([]string, 5)
	for i := range hanging {
		if hanging[i], err = createWebhook(api, hang.url, eventType); err != nil {
			return err
		}
	}
	if err := recordBacklog(ctx, st, accountA, []string{eventType}, "noisy", snapshot, 80); err != nil {
		return err
	}
	time.Sleep(2 * time.Second) // A's attempts take every worker A may have
	m.run("noisy neighbour: B beside A's hanging webhooks", func() result {
		// The binary before shares nothing: B's events wait behind A's
		// backlog, each attempt of which runs to its 15 s timeout (minutes).
		beside, err = benchSteadyWithin(apiB, recv, pending[n:], rate, phase, 10*time.Minute)
		return beside
	})
	if err != nil {
		return err
	}
	m.t.add("noisy neighbour: B's webhook, 50 events/s, beside A's 5 hanging webhooks (400 queued)", beside, alone, "B alone")
	// A's webhooks go with their deliveries: left, their retries (every
	// attempt refused once the receiver closes) ran through the phases
	// after this one, 20 failures a second in the 1,000-webhook drain.
	for _, id := range hanging {
		if _, err := api.do("DELETE", "/api/v1/webhooks/"+id, nil, http.StatusOK); err != nil {
			return err
		}
	}
	return nil
}

// hangingReceiver accepts webhooks and never answers them (until Close).
type hangingReceiver struct {
	*http.Server
	url string
}

func startHangingReceiver() (*hangingReceiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	})}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Println("hanging receiver:", err)
		}
	}()
	return &hangingReceiver{Server: srv, url: "http://" + ln.Addr().String() + "/hang"}, nil
}
