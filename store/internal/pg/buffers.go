package pg

import "sync"

// Buffers keeps byte buffers between uses (a pipeline's encoding, a batch
// of successes' header maps), so that each use does not grow a new one;
// one grown past Max is left to the collector. A buffer travels in its box
// (a *[]byte), so that keeping it allocates nothing.
type Buffers struct {
	Max  int
	pool sync.Pool
}

// Take is a kept buffer's box; *box is empty, or nil when none was kept.
func (b *Buffers) Take() (box *[]byte) {
	if v := b.pool.Get(); v != nil {
		return v.(*[]byte)
	}
	return new([]byte)
}

// Keep keeps buf (what box held, grown or not) in box for a later Take;
// buf must no longer be read.
func (b *Buffers) Keep(box *[]byte, buf []byte) {
	*box = nil
	if cap(buf) <= b.Max {
		*box = buf[:0]
	}
	b.pool.Put(box)
}
