package pg

import (
	"reflect"
	"unsafe"

	"github.com/jackc/pgx/v5/pgconn"
)

// A pipeline's messages are encoded by pgconn.Batch into a buffer of its
// own that starts empty and grows by appending: a batch of 32 successes
// (about 90 kB of arguments) grew it a dozen times, and those copies were a
// quarter of every byte the service allocated while draining deliveries
// (pgproto3.(*Bind).Encode, 126 MB of 489 MB in five seconds), so a quarter
// of the collector's work, which is a third of the service's CPU there
// (BENCHMARKS.md, "A batch's buffer, kept"). pgconn gives no way to hand a
// batch a buffer, so the batch's unexported field is set to one kept
// between batches, found by its name and type: a pgx whose Batch holds it
// differently (batchBufFound false, TestBatchesEncodeIntoAKeptBuffer
// fails) has its batches grow their own buffers again, as before.
var batchBufOffset, batchBufFound = func() (uintptr, bool) {
	f, ok := reflect.TypeFor[pgconn.Batch]().FieldByName("buf")
	return f.Offset, ok && f.Type == reflect.TypeFor[[]byte]()
}()

// batchBuf is batch's encoding buffer, or nil where it cannot be found.
func batchBuf(batch *pgconn.Batch) *[]byte {
	if !batchBufFound {
		return nil
	}
	return (*[]byte)(unsafe.Add(unsafe.Pointer(batch), batchBufOffset))
}

// wires are the batches' buffers kept: up to 1 MiB, as params keeps
// arguments' (maxKeptParams).
var wires = Buffers{Max: 1 << 20}

// batchOnKeptWire is an empty batch that encodes into a buffer kept
// between batches (in wire); keepWire gives the buffer back once the batch
// is sent.
func batchOnKeptWire() (batch *pgconn.Batch, wire *[]byte) {
	wire = wires.Take()
	return batchOn(*wire), wire
}

// keepWire keeps batch's buffer, grown if it had to, for the next batch.
// The batch must have been sent or dropped: pgconn.ExecBatch writes it
// before it returns, and reads no more of it.
func keepWire(batch *pgconn.Batch, wire *[]byte) {
	wires.Keep(wire, encoded(batch))
}

// batchOn is an empty batch that encodes into buf's array, from its start.
func batchOn(buf []byte) *pgconn.Batch {
	batch := &pgconn.Batch{}
	if field := batchBuf(batch); field != nil {
		*field = buf[:0]
	}
	return batch
}

// encoded is what batch encoded into (emptied, to encode the next batch
// into), or nil where its buffer cannot be found.
func encoded(batch *pgconn.Batch) []byte {
	field := batchBuf(batch)
	if field == nil {
		return nil
	}
	buf := (*field)[:0]
	*field = nil
	return buf
}
