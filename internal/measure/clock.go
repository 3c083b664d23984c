package measure

import (
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// OpInterval is one operation type's totals for one interval.
type OpInterval struct {
	Ops    int64
	Rows   int64
	Errors int64
	Hist   *hdr.Histogram
}

// Interval is the merged record of one clock interval.
type Interval struct {
	// Index counts intervals from 0 within the step.
	Index int
	// Start is when the interval began; Seconds its measured length.
	Start   time.Time
	Seconds float64
	Ops     [NumOps]*OpInterval // nil for operation types not seen
}

// Rate returns rows per second of op in the interval (0 if none).
func (iv *Interval) Rate(op Op) float64 {
	o := iv.Ops[op]
	if o == nil || iv.Seconds <= 0 {
		return 0
	}
	return float64(o.Rows) / iv.Seconds
}

// OpRate returns operations per second of op in the interval (0 if none).
func (iv *Interval) OpRate(op Op) float64 {
	o := iv.Ops[op]
	if o == nil || iv.Seconds <= 0 {
		return 0
	}
	return float64(o.Ops-o.Errors) / iv.Seconds
}

// IntervalHook is called with every interval as it closes, from the clock's
// goroutine. The interval and its histograms are only valid during the call.
type IntervalHook func(*Interval)

// Clock is one step's interval clock. Workers record into their own
// Recorders; every interval the clock swaps and merges them.
type Clock struct {
	interval time.Duration
	hooks    []IntervalHook

	mu        sync.Mutex
	recorders []*Recorder

	start   time.Time
	last    time.Time
	index   int
	total   [NumOps]*OpInterval
	scratch Interval
	rates   [NumOps][]float64
	opRates [NumOps][]float64
	stop    chan struct{}
	done    chan struct{}
	end     time.Time
}

// NewClock returns a stopped clock with the given interval; hooks see every
// interval.
func NewClock(interval time.Duration, hooks ...IntervalHook) *Clock {
	if interval <= 0 {
		interval = time.Second
	}
	return &Clock{interval: interval, hooks: hooks}
}

// Recorder registers and returns a new per-worker recorder.
func (c *Clock) Recorder() *Recorder {
	r := newRecorder()
	c.mu.Lock()
	c.recorders = append(c.recorders, r)
	c.mu.Unlock()
	return r
}

// Start starts ticking.
func (c *Clock) Start() {
	c.start = time.Now()
	c.last = c.start
	c.stop = make(chan struct{})
	c.done = make(chan struct{})
	go c.loop()
}

func (c *Clock) loop() {
	defer close(c.done)
	// Ticks follow a fixed schedule from the start, so sleep overshoot never
	// accumulates into drift.
	next := c.start.Add(c.interval)
	t := time.NewTimer(time.Until(next))
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			c.tick(time.Now())
			return
		case <-t.C:
			now := time.Now()
			c.tick(now)
			next = next.Add(c.interval)
			for !next.After(now) {
				next = next.Add(c.interval)
			}
			t.Reset(time.Until(next))
		}
	}
}

// Stop ends the step: the last, possibly partial, interval is merged and the
// clock's totals are final.
func (c *Clock) Stop() {
	if c.stop == nil {
		return
	}
	close(c.stop)
	<-c.done
	c.end = c.last
	c.stop = nil
}

// Seconds is the step's length so far (final after Stop).
func (c *Clock) Seconds() float64 { return c.last.Sub(c.start).Seconds() }

// StartTime is when the clock started.
func (c *Clock) StartTime() time.Time { return c.start }

func (c *Clock) tick(now time.Time) {
	iv := &c.scratch
	for i := range iv.Ops {
		if iv.Ops[i] != nil {
			iv.Ops[i].Ops, iv.Ops[i].Rows, iv.Ops[i].Errors = 0, 0, 0
			iv.Ops[i].Hist.Reset()
		}
	}
	c.mu.Lock()
	recs := c.recorders
	c.mu.Unlock()
	for _, r := range recs {
		counts := r.swap()
		for op := range counts {
			oc := &counts[op]
			if oc.ops == 0 {
				continue
			}
			if iv.Ops[op] == nil {
				iv.Ops[op] = &OpInterval{Hist: NewHistogram()}
			}
			o := iv.Ops[op]
			o.Ops += oc.ops
			o.Rows += oc.rows
			o.Errors += oc.errors
			o.Hist.Merge(oc.hist)
		}
		r.giveBack(counts)
	}
	iv.Index = c.index
	iv.Start = c.last
	iv.Seconds = now.Sub(c.last).Seconds()
	c.index++
	c.last = now
	for op, o := range iv.Ops {
		if o == nil {
			continue
		}
		if c.total[op] == nil {
			c.total[op] = &OpInterval{Hist: NewHistogram()}
		}
		t := c.total[op]
		t.Ops += o.Ops
		t.Rows += o.Rows
		t.Errors += o.Errors
		t.Hist.Merge(o.Hist)
	}
	// Only intervals of at least half the nominal length count toward rate
	// percentiles; a short final interval is too noisy to judge the engine by.
	if iv.Seconds >= c.interval.Seconds()/2 || c.index == 1 {
		for op := range c.rates {
			c.rates[op] = append(c.rates[op], iv.Rate(Op(op)))
			c.opRates[op] = append(c.opRates[op], iv.OpRate(Op(op)))
		}
	}
	for _, h := range c.hooks {
		h(iv)
	}
}

// Total returns the step totals for op (nil if it never happened). Valid
// after Stop.
func (c *Clock) Total(op Op) *OpInterval { return c.total[op] }

// Rates returns the per-interval rates (rows/s) of op used for percentiles.
func (c *Clock) Rates(op Op) []float64 { return c.rates[op] }

// OpRates returns the per-interval successful operations per second of op.
func (c *Clock) OpRates(op Op) []float64 { return c.opRates[op] }

// Interval is the nominal interval length.
func (c *Clock) Interval() time.Duration { return c.interval }
