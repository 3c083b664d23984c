// Package measure holds the run's clock: per-worker recorders of operations,
// rows, errors and HdrHistogram latencies, merged once per interval, and the
// arithmetic that turns intervals into step rates.
package measure

import (
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Op is an operation type. A fixed set indexes arrays on the hot path.
type Op int

const (
	OpInsert Op = iota
	OpDelete
	OpQuery
	OpUpdate
	OpIndex
	OpScan
	// Response-time twins of rate-limited operations: latency from the
	// intended start on the schedule, not from the send (no coordinated omission).
	OpInsertResponse
	OpDeleteResponse
	OpUpdateResponse
	NumOps
)

var opNames = [NumOps]string{
	"insert", "delete", "query", "update", "index", "scan",
	"insert_response", "delete_response", "update_response",
}

func (o Op) String() string { return opNames[o] }

// OpByName returns the Op with that name.
func OpByName(name string) (Op, bool) {
	for i, n := range opNames {
		if n == name {
			return Op(i), true
		}
	}
	return 0, false
}

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
	cur *[NumOps]opCounts
	// spare is swapped in at each tick; the clock resets it after merging.
	spare *[NumOps]opCounts
}

func newRecorder() *Recorder {
	return &Recorder{cur: new([NumOps]opCounts), spare: new([NumOps]opCounts)}
}

// Record counts one operation of rows rows that took d; failed operations
// count as errors and their latency is still recorded.
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
func (r *Recorder) swap() *[NumOps]opCounts {
	r.mu.Lock()
	out := r.cur
	r.cur = r.spare
	r.spare = nil
	r.mu.Unlock()
	return out
}

// giveBack returns a drained counter set for reuse as the next spare.
func (r *Recorder) giveBack(c *[NumOps]opCounts) {
	for i := range c {
		c[i].ops, c[i].rows, c[i].errors = 0, 0, 0
		if c[i].hist != nil {
			c[i].hist.Reset()
		}
	}
	r.mu.Lock()
	r.spare = c
	r.mu.Unlock()
}
