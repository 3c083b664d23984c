package bbolt

import (
	"context"
	"errors"

	"rumbench/internal/model"
)

var _ model.InternalsReporter = (*DB)(nil)

// Internals implements model.InternalsReporter with bbolt's transaction
// counters (cumulative since open). bbolt has none of the common concepts:
// no cache of its own (it reads through the OS page cache, mmap), no log
// and no background writer (each commit writes its own pages), so only the
// raw counters are recorded.
func (d *DB) Internals(context.Context) (model.Internals, error) {
	if d.Closed() {
		return model.Internals{}, errors.New("engine is closed")
	}
	s := d.st.db.Stats()
	ts := &s.TxStats
	return model.Internals{Raw: map[string]float64{
		"page_writes":      float64(ts.GetWrite()),
		"pages_allocated":  float64(ts.GetPageCount()),
		"page_alloc_bytes": float64(ts.GetPageAlloc()),
		"node_derefs":      float64(ts.GetNodeDeref()),
		"splits":           float64(ts.GetSplit()),
		"spills":           float64(ts.GetSpill()),
		"rebalances":       float64(ts.GetRebalance()),
	}}, nil
}
