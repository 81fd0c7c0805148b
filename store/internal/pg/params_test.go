package pg

import (
	"bytes"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
)

// TestParamsEncodeAsPgxDoes holds the kept-buffer encoder to pgx's own
// builder, value by value and format by format, for the kinds of
// arguments the store's statements pass; and a second statement through
// the same encoder to its own encoding, not the first one's leftovers.
func TestParamsEncodeAsPgxDoes(t *testing.T) {
	m := pgtype.NewMap()
	text, none := "résumé", (*string)(nil)
	at := time.Date(2026, 11, 29, 23, 0, 0, 123456000, time.UTC)
	statements := []struct {
		oids []uint32
		args []any
	}{
		{[]uint32{pgtype.TextOID, pgtype.TextOID, pgtype.TextOID, pgtype.Int4OID, pgtype.TimestamptzOID,
			pgtype.ByteaOID, pgtype.BoolOID, pgtype.TextArrayOID, pgtype.Int4ArrayOID, pgtype.TimestamptzArrayOID,
			pgtype.TextArrayOID, pgtype.ByteaArrayOID, pgtype.Int8OID, pgtype.JSONBOID},
			[]any{"", text, none, int32(7), at, []byte{0, 1, 2}, true, []string{"a", "", "ç"}, []int32{1, 2},
				[]time.Time{at, at.Add(time.Hour)}, []*string{&text, nil}, [][]byte{{9}, nil}, nil, `{"a":1}`}},
		{[]uint32{pgtype.TextOID, pgtype.Int8OID, pgtype.TextArrayOID},
			[]any{"second", int64(1) << 40, []string{"x"}}},
	}
	enc := takeParams()
	defer enc.release()
	enc.buf = nil // as a fresh one: an empty string must not read as NULL
	for n, st := range statements {
		sd := &pgconn.StatementDescription{ParamOIDs: st.oids,
			Fields: []pgconn.FieldDescription{{DataTypeOID: pgtype.TextOID}, {DataTypeOID: pgtype.Int4OID}}}
		var eqb pgx.ExtendedQueryBuilder
		if err := eqb.Build(m, sd, st.args); err != nil {
			t.Fatal(err)
		}
		if err := enc.build(m, sd, st.args); err != nil {
			t.Fatal(err)
		}
		if len(enc.values) != len(eqb.ParamValues) {
			t.Fatalf("statement %d: %d values, pgx %d", n, len(enc.values), len(eqb.ParamValues))
		}
		for i := range enc.values {
			got, want := enc.values[i], eqb.ParamValues[i]
			if (got == nil) != (want == nil) || !bytes.Equal(got, want) {
				t.Errorf("statement %d, arg %d (%T): %q, pgx %q", n, i, st.args[i], got, want)
			}
		}
		if !slices.Equal(enc.formats, eqb.ParamFormats) || !slices.Equal(enc.results, eqb.ResultFormats) {
			t.Errorf("statement %d: formats %v / %v, pgx %v / %v", n, enc.formats, enc.results, eqb.ParamFormats, eqb.ResultFormats)
		}
	}
	if err := enc.build(m, &pgconn.StatementDescription{ParamOIDs: []uint32{pgtype.TextOID}}, nil); err == nil {
		t.Error("a statement given fewer arguments than it has parameters was encoded")
	}
}
