package restore

import (
	"sync"
	"sync/atomic"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
)

// scanBatch is how many rows a reader reads at a time: a batch.
const scanBatch = 2048

// memPool recycles the memory of the batches a producer's readers read:
// the records (~160 B each) and the chunks their keys and values are
// copied into. Allocated afresh, they were ~375 MB of the ~540 MB a
// million-record restore allocated, each zeroed, scanned by the
// collector and faulted into the process.
type memPool struct{ p sync.Pool }

func (mp *memPool) get() *batchMem {
	if m, ok := mp.p.Get().(*batchMem); ok {
		return m
	}
	return &batchMem{pool: mp}
}

// batchMem is one batch's memory. A reader copies the batch into it;
// once handed to the producer with its records (hold), it goes back to
// the pool when the last of them is acknowledged (or failed): franz-go
// keeps no record past its promise.
type batchMem struct {
	pool   *memPool
	slab   []kgo.Record
	recs   []*kgo.Record
	chunks [][]byte // chunks of this batch's bytes
	free   [][]byte // chunks to use again
	left   atomic.Int64
	p      *txnProducer // its promise's producer
}

// records gives the batch's record slice (empty) and n records to fill.
func (m *batchMem) records(n int) ([]*kgo.Record, []kgo.Record) {
	if cap(m.slab) < n {
		m.slab, m.recs = make([]kgo.Record, n), make([]*kgo.Record, 0, n)
	}
	return m.recs[:0], m.slab[:n]
}

// chunk is the scan's arena allocator (catalog.ScanDataFileColumnsInto).
func (m *batchMem) chunk(n int) []byte {
	if n != catalog.ArenaChunk {
		return make([]byte, 0, n) // a large value: its own, not kept
	}
	var c []byte
	if k := len(m.free); k > 0 {
		c, m.free = m.free[k-1][:0], m.free[:k-1]
	} else {
		c = make([]byte, 0, n)
	}
	m.chunks = append(m.chunks, c)
	return c
}

// hold: n records of the batch are handed over, each to be acked.
func (m *batchMem) hold(n int) { m.left.Store(int64(n)) }

// acked is the promise of a record of the batch.
func (m *batchMem) acked(r *kgo.Record, err error) {
	if err != nil {
		m.p.acked(r, err)
	}
	if m.left.Add(-1) == 0 {
		m.release()
	}
}

// release gives the batch's memory back to the pool: nothing may refer to
// it any more. A nil m is none.
func (m *batchMem) release() {
	if m == nil {
		return
	}
	m.free = append(m.free, m.chunks...)
	clear(m.chunks)
	m.chunks = m.chunks[:0]
	m.p = nil
	m.pool.p.Put(m)
}
