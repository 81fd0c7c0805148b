package pg

import (
	"bytes"
	"runtime"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestBatchesEncodeIntoAKeptBuffer: a batch of 90 kB of arguments, encoded
// again and again on the buffer the one before encoded into (batchOn,
// encoded: what a pipeline keeps in its pool between batches), allocates a
// few hundred bytes a batch (the batch and its bookkeeping), where a batch
// growing its own buffer allocates more than the message, and it encodes
// the same bytes as that batch, with nothing of the previous one left in
// front. (Not through the pool: under the race detector a sync.Pool drops
// a quarter of what it is given, on purpose.)
func TestBatchesEncodeIntoAKeptBuffer(t *testing.T) {
	if !batchBufFound {
		t.Fatal("pgconn.Batch holds no buf []byte: pipelines grow a buffer per batch again")
	}
	values := [][]byte{bytes.Repeat([]byte("a"), 60_000), nil, bytes.Repeat([]byte("b"), 30_000)}
	formats, results := []int16{0, 0, 0}, []int16{0}
	encode := func(batch *pgconn.Batch) {
		batch.ExecPrepared("finish", values, formats, results)
		batch.ExecPrepared("claim", values[:1], formats[:1], results)
	}
	plain := &pgconn.Batch{}
	encode(plain)
	bytesPerBatch := func(run func()) uint64 {
		run() // the kept buffer grows once
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		const n = 50
		for range n {
			run()
		}
		runtime.ReadMemStats(&after)
		return (after.TotalAlloc - before.TotalAlloc) / n
	}
	var wire []byte
	kept := bytesPerBatch(func() {
		batch := batchOn(wire)
		encode(batch)
		if !bytes.Equal(*batchBuf(batch), *batchBuf(plain)) {
			t.Fatal("a batch on the kept buffer encoded other bytes than a batch of its own")
		}
		wire = encoded(batch)
	})
	grown := bytesPerBatch(func() { encode(&pgconn.Batch{}) })
	t.Logf("bytes allocated per batch of %d: kept buffer %d, its own %d", len(*batchBuf(plain)), kept, grown)
	if kept > 2_000 || grown < 90_000 {
		t.Errorf("bytes allocated per batch: kept buffer %d (want under 2,000), its own %d", kept, grown)
	}
}
