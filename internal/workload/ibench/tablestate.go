package ibench

import (
	"sync"
	"sync/atomic"

	"rumbench/internal/model"
)

// tableState is one table and its live PK range [min, next).
//
// Its clients share one PK sequence: each reserves its batch's keys from
// nextPK before inserting (reserve), so keys are unique and increase per
// table, and the batches of the table's clients interleave in PK order.
// Batches commit out of order, so committed is the end of the contiguous
// committed range: every PK in [minPK, committed) is in the table, and the
// deleter never deletes at or above it (a delete must not step over a
// batch still in flight, or the bound would pass rows it never deleted).
//
// minPK is also the lower bound M of the table's deletes: DeleteOldest
// deletes the oldest rows with PK >= M, and the deleter (one per table at a
// time) advances M by the rows it deleted. Every PK in [M, committed) was
// committed before the deleter was told about it, so M + deleted is exactly
// the last deleted PK + 1; were rows missing from the range, M would lag
// (the next delete steps over their gap) but never skip a row. M is resynced
// from min(transactionid) at the start of every step that deletes
// (syncLowerBound), as the reference benchmark does. There is one deleter
// per table, whatever the number of its clients.
type tableState struct {
	schema  *model.Table
	index   int // the table's number (pi<index+1>), the same in every shard
	clients int // clients writing the table
	minPK   atomic.Int64
	nextPK  atomic.Int64 // next PK to reserve

	committed atomic.Int64
	mu        sync.Mutex
	ahead     map[int64]int64 // committed batches above committed: first PK -> rows
}

// Rows is the live row count implied by the PK range.
func (t *tableState) Rows() int64 { return t.nextPK.Load() - t.minPK.Load() }

// reserve takes k PKs from the table's sequence and returns the first.
func (t *tableState) reserve(k int64) int64 { return t.nextPK.Add(k) - k }

// commit records that the batch [first, first+k) is in the table.
func (t *tableState) commit(first, k int64) {
	if t.clients == 1 {
		t.committed.Add(k) // one writer: batches commit in PK order
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if first != t.committed.Load() {
		t.ahead[first] = k
		return
	}
	end := first + k
	for {
		n, ok := t.ahead[end]
		if !ok {
			break
		}
		delete(t.ahead, end)
		end += n
	}
	t.committed.Store(end)
}

// settle makes every reserved PK count as committed: at a step's start no
// batch is in flight (a failed one leaves a gap, which deletes step over).
func (t *tableState) settle() {
	t.mu.Lock()
	defer t.mu.Unlock()
	clear(t.ahead)
	t.committed.Store(t.nextPK.Load())
}

// deletable is how many rows from the delete bound up are committed.
func (t *tableState) deletable() int64 { return t.committed.Load() - t.minPK.Load() }

// clientState is one client: its table and its own row generator (every
// client of a table generates the same row for a PK).
type clientState struct {
	t   *tableState
	gen *RowGen
	// index is the client's number among all --clients (the same in every
	// shard); table is its table's position in Bench.tables.
	index, table int
}
