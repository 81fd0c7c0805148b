package reports

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"hash"

	"payments/store"
)

// parts is where a report's file is written: a part of store.ReportPartSize
// at a time, each stored in a statement of its own, so the file never sits
// whole in memory.
type parts struct {
	ctx   context.Context
	store *store.Store
	id    string
	buf   []byte
	seq   int
	size  int64
	sum   hash.Hash
}

func newParts(ctx context.Context, st *store.Store, id string) *parts {
	return &parts{ctx: ctx, store: st, id: id, buf: make([]byte, 0, store.ReportPartSize), sum: sha256.New()}
}

func (p *parts) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		room := store.ReportPartSize - len(p.buf)
		take := min(room, len(b))
		p.buf = append(p.buf, b[:take]...)
		b = b[take:]
		if len(p.buf) == store.ReportPartSize {
			if err := p.flush(); err != nil {
				return 0, err
			}
		}
	}
	return n, nil
}

func (p *parts) flush() error {
	if len(p.buf) == 0 {
		return nil
	}
	if err := p.store.WriteReportPart(p.ctx, p.id, p.seq, p.buf); err != nil {
		return err
	}
	p.sum.Write(p.buf)
	p.size += int64(len(p.buf))
	p.seq++
	p.buf = p.buf[:0]
	return nil
}

// close writes the last part and returns the file's size and SHA-256.
func (p *parts) close() (size int64, sha string, err error) {
	if err := p.flush(); err != nil {
		return 0, "", err
	}
	return p.size, hex.EncodeToString(p.sum.Sum(nil)), nil
}
