package pg

import (
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// params encodes a prepared statement's arguments for its Bind message, as
// pgx's ExtendedQueryBuilder does, into a buffer kept between calls. The
// builder starts every statement from a buffer of 256 bytes: a batch of 32
// successes (32 request bodies and header maps, about 90 kB of arguments)
// grew it a dozen times, and those copies were 29% of all the service
// allocated while draining deliveries, the collector's work with them
// (BENCHMARKS.md, "Encoded into a kept buffer").
type params struct {
	buf     []byte
	ends    []int // where each value ends in buf; -1 for NULL
	values  [][]byte
	formats []int16
	results []int16
}

// maxKeptParams is the largest buffer put back for the next statement: a
// rare huge one (a batch of a thousand charges) is left to the collector.
const maxKeptParams = 1 << 20

var paramsPool = sync.Pool{New: func() any { return new(params) }}

func takeParams() *params { return paramsPool.Get().(*params) }

// release gives p back; its values must no longer be read (a Bind made of
// them has been encoded into the batch or the pipeline's buffer).
func (p *params) release() {
	if cap(p.buf) > maxKeptParams {
		p.buf = nil
		clear(p.values) // nor kept by the slices into it
	}
	paramsPool.Put(p)
}

// build encodes args for sd: each in the format its type prefers (text for
// Go strings, as pgx does), the other when that fails; result columns in
// the format pgx reads best.
func (p *params) build(m *pgtype.Map, sd *pgconn.StatementDescription, args []any) error {
	if len(sd.ParamOIDs) != len(args) {
		return fmt.Errorf("mismatched param and argument count")
	}
	if p.buf == nil { // never nil: an empty value appended to nil would read as NULL
		p.buf = make([]byte, 0, 4096)
	}
	p.buf, p.ends, p.values, p.formats, p.results = p.buf[:0], p.ends[:0], p.values[:0], p.formats[:0], p.results[:0]
	for i, arg := range args {
		oid := sd.ParamOIDs[i]
		format := preferredFormat(m, oid, arg)
		buf, err := m.Encode(oid, format, arg, p.buf)
		if err != nil {
			format = otherFormat(format)
			var otherErr error
			if buf, otherErr = m.Encode(oid, format, arg, p.buf); otherErr != nil {
				return fmt.Errorf("failed to encode args[%d]: %w", i, err)
			}
		}
		end := -1
		if buf != nil {
			p.buf, end = buf, len(buf)
		}
		p.ends = append(p.ends, end)
		p.formats = append(p.formats, format)
	}
	// Sliced once the buffer has stopped growing.
	start := 0
	for _, end := range p.ends {
		if end < 0 {
			p.values = append(p.values, nil)
			continue
		}
		p.values = append(p.values, p.buf[start:end:end])
		start = end
	}
	for _, f := range sd.Fields {
		p.results = append(p.results, m.FormatCodeForOID(f.DataTypeOID))
	}
	return nil
}

func preferredFormat(m *pgtype.Map, oid uint32, arg any) int16 {
	switch arg.(type) {
	case string, *string:
		return pgtype.TextFormatCode
	}
	return m.FormatCodeForOID(oid)
}

func otherFormat(format int16) int16 {
	if format == pgtype.TextFormatCode {
		return pgtype.BinaryFormatCode
	}
	return pgtype.TextFormatCode
}
