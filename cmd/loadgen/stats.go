package main

import (
	"slices"
	"sync"
	"time"
)

// recorder collects latencies from many goroutines.
type recorder struct {
	mu   sync.Mutex
	lat  []time.Duration
	errs int
}

func (r *recorder) add(d time.Duration, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.errs++
		return
	}
	r.lat = append(r.lat, d)
}

// result is one measured line: throughput and latency percentiles.
type result struct {
	ops      int
	errs     int
	elapsed  time.Duration
	p50, p99 time.Duration
	sorted   []time.Duration // every latency, for merging slices of one measurement
}

func (r result) perSecond() float64 { return float64(r.ops) / r.elapsed.Seconds() }

func (r *recorder) result(elapsed time.Duration) result {
	r.mu.Lock()
	defer r.mu.Unlock()
	lat := slices.Clone(r.lat)
	slices.Sort(lat)
	return resultOf(lat, r.errs, elapsed)
}

func resultOf(sorted []time.Duration, errs int, elapsed time.Duration) result {
	return result{ops: len(sorted), errs: errs, elapsed: elapsed, sorted: sorted,
		p50: percentile(sorted, 0.50), p99: percentile(sorted, 0.99)}
}

// plus is r and o measured as one: their operations over their summed time.
func (r result) plus(o result) result {
	lat := append(slices.Clone(r.sorted), o.sorted...)
	slices.Sort(lat)
	return resultOf(lat, r.errs+o.errs, r.elapsed+o.elapsed)
}

func percentile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted)-1) * q)
	return sorted[i]
}

// closedLoop runs op from c goroutines, back to back, for d.
func closedLoop(c int, d time.Duration, op func(worker, i int) error) result {
	rec := &recorder{}
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for w := range c {
		wg.Go(func() {
			for i := 0; time.Now().Before(deadline); i++ {
				t := time.Now()
				err := op(w, i)
				rec.add(time.Since(t), err)
			}
		})
	}
	wg.Wait()
	return rec.result(time.Since(start))
}
