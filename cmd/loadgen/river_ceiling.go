package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

// River (riverqueue/river, the PostgreSQL job queue Go teams use) as a
// ceiling for the drains: it burns down as many no-op jobs as the drains'
// backlog, on the same PostgreSQL, tuned as it is for throughput (a 2 ms
// fetch cooldown, 200 workers, its batch completer). A delivery does more
// than a no-op job (a request, a signature, an attempt row), but the
// PostgreSQL CPU per job is what a delivery's share of PostgreSQL can come
// down toward. The dependency is the load generator's alone.

type noopArgs struct{}

func (noopArgs) Kind() string { return "noop" }

type noopWorker struct {
	river.WorkerDefaults[noopArgs]
}

func (noopWorker) Work(context.Context, *river.Job[noopArgs]) error { return nil }

// riverWorkers is the client's workers: River's own benchmarks run
// hundreds, since a no-op job holds one for no time.
const riverWorkers = 200

func benchRiver(ctx context.Context, dbURL string, m *meter, n int) error {
	pool, err := pgxpool.New(ctx, dbURL+"&pool_max_conns=16")
	if err != nil {
		return err
	}
	defer pool.Close()
	driver := riverpgxv5.New(pool)
	migrator, err := rivermigrate.New(driver, nil)
	if err != nil {
		return err
	}
	if _, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("river migrations: %w", err)
	}
	workers := river.NewWorkers()
	river.AddWorker(workers, &noopWorker{})
	client, err := river.NewClient(driver, &river.Config{
		Queues:        map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: riverWorkers}},
		Workers:       workers,
		FetchCooldown: 2 * time.Millisecond, FetchPollInterval: 50 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		return err
	}
	for queued := 0; queued < n; {
		batch := make([]river.InsertManyParams, min(10_000, n-queued))
		for i := range batch {
			batch[i] = river.InsertManyParams{Args: noopArgs{}}
		}
		if _, err := client.InsertManyFast(ctx, batch); err != nil {
			return fmt.Errorf("river insert: %w", err)
		}
		queued += len(batch)
	}
	// A channel for every job: River drops the events a full channel cannot take.
	completed, stopEvents := client.SubscribeConfig(&river.SubscribeConfig{Kinds: []river.EventKind{river.EventKindJobCompleted}, ChanSize: n})
	defer stopEvents()
	settleCtx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	name := fmt.Sprintf("River %d no-op jobs burned down (%d workers, 2 ms fetch cooldown)", n, riverWorkers)
	var res result
	m.run(name, func() result {
		start := time.Now()
		if err = client.Start(settleCtx); err != nil {
			return result{}
		}
		for done := 0; done < n; done++ {
			select {
			case <-completed:
			case <-settleCtx.Done():
				err = fmt.Errorf("river: %d of %d jobs done in 5 minutes", done, n)
				return result{}
			}
		}
		res = result{ops: n, elapsed: time.Since(start)}
		return res
	})
	stopCtx, stop := context.WithTimeout(ctx, 10*time.Second)
	defer stop()
	if stopErr := client.Stop(stopCtx); err == nil {
		err = stopErr
	}
	if err != nil {
		return err
	}
	m.t.add(name, res, result{}, "")
	return nil
}
