// Package measure holds the run's clock: per-worker recorders of operations,
// rows, errors and HdrHistogram latencies, merged once per interval, and the
// arithmetic that turns intervals into step rates.
package measure

import (
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram bounds: latencies in microseconds from 1 µs to one hour with three
// significant digits, so any percentile is within 0.1%.
const (
	histMinUs = 1
	histMaxUs = 3_600_000_000
	histSig   = 3
)

// NewHistogram returns an empty latency histogram (µs).
func NewHistogram() *hdr.Histogram { return hdr.New(histMinUs, histMaxUs, histSig) }

// opCounts is one operation type's counters for one interval.
type opCounts struct {
	ops, rows, errors int64
	hist              *hdr.Histogram
}

// Recorder belongs to one worker. Its lock is taken by that worker for each
// record and by the clock once per interval, so it is never contended in
// practice: there is no lock shared between workers.
type Recorder struct {
	mu  sync.Mutex
	cur []opCounts
	// spare is swapped in at each tick; the clock resets it after merging.
	spare []opCounts
}

func newRecorder(n int) *Recorder {
	return &Recorder{cur: make([]opCounts, n), spare: make([]opCounts, n)}
}

// Record counts one operation of rows rows that took d; failed operations
// count as errors and their latency is still recorded. op must belong to the
// clock's operation set.
func (r *Recorder) Record(op Op, rows int, d time.Duration, failed bool) {
	us := d.Microseconds()
	if us > histMaxUs {
		us = histMaxUs
	}
	r.mu.Lock()
	c := &r.cur[op]
	if c.hist == nil {
		c.hist = NewHistogram()
	}
	c.ops++
	if failed {
		c.errors++
	} else {
		c.rows += int64(rows)
	}
	_ = c.hist.RecordValue(us)
	r.mu.Unlock()
}

// swap hands the current interval's counters to the clock.
func (r *Recorder) swap() []opCounts {
	r.mu.Lock()
	out := r.cur
	r.cur = r.spare
	r.spare = nil
	r.mu.Unlock()
	return out
}

// giveBack returns a drained counter set for reuse as the next spare.
func (r *Recorder) giveBack(c []opCounts) {
	for i := range c {
		c[i].ops, c[i].rows, c[i].errors = 0, 0, 0
		if c[i].hist != nil && c[i].hist.TotalCount() != 0 {
			c[i].hist.Reset()
		}
	}
	r.mu.Lock()
	r.spare = c
	r.mu.Unlock()
}

// Add counts a whole interval's worth of op at once: ops operations, of which
// errors failed, rows rows, latencies h. It replays interval logs (rumbench
// merge adds the shards' intervals through a clock).
func (r *Recorder) Add(op Op, ops, rows, errors int64, h *hdr.Histogram) {
	r.mu.Lock()
	c := &r.cur[op]
	if c.hist == nil {
		c.hist = NewHistogram()
	}
	c.ops += ops
	c.rows += rows
	c.errors += errors
	if h != nil {
		c.hist.Merge(h)
	}
	r.mu.Unlock()
}
