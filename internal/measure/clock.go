package measure

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"rumbench/internal/steady"
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
	// Warmup marks an interval of the step's warm-up: logged for
	// inspection, not counted in the step's totals, rates or stalls.
	Warmup bool
	// Spec is the clock's operation set; Ops is indexed like it (nil for
	// operation types not seen in the interval).
	Spec Ops
	Ops  []*OpInterval
	// Loop, when not 0, identifies the ticking clock whose own OS thread
	// ran this tick: the thread is locked to the clock's loop, which does
	// nothing but the clock's work (merging, its hooks: encoding, logging,
	// sampling), so that thread's CPU between two ticks of the same Loop is
	// bookkeeping, not the client's (sysmetrics: sampler_cpu_us).
	Loop uint64
}

// Done returns what op completed in its unit: rows, or successful operations.
func (o *OpInterval) Done(u Unit) int64 {
	if o == nil {
		return 0
	}
	if u == UnitOps {
		return o.Ops - o.Errors
	}
	return o.Rows
}

// Rate returns op's rate in the interval in its unit: rows/s or successful
// operations/s (0 if none).
func (iv *Interval) Rate(op Op) float64 {
	o := iv.Ops[op]
	if o == nil || iv.Seconds <= 0 {
		return 0
	}
	return float64(o.Done(iv.Spec[op].Unit)) / iv.Seconds
}

// IntervalHook is called with every interval as it closes, from the clock's
// goroutine. The interval and its histograms are only valid during the call.
type IntervalHook func(*Interval)

// Clock is one step's interval clock. Workers record into their own
// Recorders; every interval the clock swaps and merges them.
type Clock struct {
	interval time.Duration
	ops      Ops
	hooks    []IntervalHook
	// warmup is how long after the start intervals are warm-up; measured
	// is when the measured part began (start + warmup).
	warmup   time.Duration
	measured time.Time
	// steady, when set, extends the warm-up until its rule holds over
	// steadyValue of each interval (or its limit passes); measuring is
	// closed when the measured part begins.
	steady      *steady.Tracker
	steadyValue func(*Interval) float64
	steadyDone  bool
	measuring   chan struct{}

	mu        sync.Mutex
	recorders []*Recorder

	start   time.Time
	last    time.Time
	index   int
	total   []*OpInterval
	scratch Interval
	rates   [][]float64
	secs    []float64
	stop    chan struct{}
	done    chan struct{}
	end     time.Time
	loopID  uint64
}

// loopIDs numbers clock loops (Interval.Loop).
var loopIDs atomic.Uint64

// NewClock returns a stopped clock with the given interval for the
// operation set ops; hooks see every interval.
func NewClock(interval time.Duration, ops Ops, hooks ...IntervalHook) *Clock {
	if interval <= 0 {
		interval = time.Second
	}
	n := len(ops)
	return &Clock{
		interval: interval, ops: ops, hooks: hooks,
		total: make([]*OpInterval, n), rates: make([][]float64, n),
		scratch: Interval{Spec: ops, Ops: make([]*OpInterval, n)},
	}
}

// Ops is the clock's operation set.
func (c *Clock) Ops() Ops { return c.ops }

// Recorder registers and returns a new per-worker recorder.
func (c *Clock) Recorder() *Recorder {
	r := newRecorder(len(c.ops))
	c.mu.Lock()
	c.recorders = append(c.recorders, r)
	c.mu.Unlock()
	return r
}

// SetWarmup makes the first d of the step a warm-up, rounded up to whole
// intervals so that measured intervals start on the clock's schedule. Call
// before Start.
func (c *Clock) SetWarmup(d time.Duration) {
	if d <= 0 {
		c.warmup = 0
		return
	}
	n := (d + c.interval - 1) / c.interval
	c.warmup = n * c.interval
}

// Warmup is the warm-up length (whole intervals).
func (c *Clock) Warmup() time.Duration { return c.warmup }

// SetSteady makes the warm-up last until t's steady-state rule holds over
// value(interval) of each interval, or its limit has passed: the measured
// part then starts at that tick. A fixed warm-up (SetWarmup) runs first.
// Call before Start.
func (c *Clock) SetSteady(t *steady.Tracker, value func(*Interval) float64) {
	c.steady, c.steadyValue = t, value
}

// Steady is the steady-state record of the step (nil without SetSteady);
// final after Stop.
func (c *Clock) Steady() *steady.Result {
	if c.steady == nil {
		return nil
	}
	r := c.steady.Result()
	return &r
}

// Deadline is when a time-bounded step of the given measured length ends:
// MeasuredStart + length once the measured part has begun, and until then
// the latest it can be (the fixed warm-up and the steady-state rule's limit
// from the start, plus length). Call after Start.
func (c *Clock) Deadline(length time.Duration) *Deadline {
	select {
	case <-c.measuring:
		return FixedDeadline(c.measured.Add(length))
	default:
	}
	latest := c.start.Add(c.warmup).Add(length)
	if c.steady != nil {
		// The rule is judged at ticks: one interval of slack.
		latest = latest.Add(c.steady.Spec().Max + c.interval)
	}
	d := FixedDeadline(latest)
	go func() {
		<-c.measuring // closed by Stop at the latest
		d.ns.Store(c.measured.Add(length).UnixNano())
	}()
	return d
}

// Measuring is closed when the measured part of the step begins: at the
// start, after a fixed warm-up, or when the steady-state rule held.
// MeasuredStart is final once it is closed; a time-bounded step's workers
// run until MeasuredStart plus their length.
func (c *Clock) Measuring() <-chan struct{} { return c.measuring }

// Start starts ticking.
func (c *Clock) Start() { c.StartFrom(time.Now()) }

// StartFrom starts ticking with interval boundaries at t + k×interval: the
// shards of one run (--shard) start every step's clock at the start time
// they agreed on, so their intervals cover the same spans and add by index.
// t is at most a moment in the past.
func (c *Clock) StartFrom(t time.Time) {
	c.StartAt(t)
	c.stop = make(chan struct{})
	c.done = make(chan struct{})
	go c.loop()
}

func (c *Clock) loop() {
	defer close(c.done)
	// The loop keeps its OS thread, so the thread's CPU is the clock's own
	// (Interval.Loop).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c.loopID = loopIDs.Add(1)
	defer func() { c.loopID = 0 }()
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
	if !c.steadyDone {
		// Stopped in the warm-up: nothing was measured.
		c.endWarmup(c.last)
	}
}

// Seconds is the measured length of the step so far, warm-up excluded
// (final after Stop).
func (c *Clock) Seconds() float64 {
	if c.last.Before(c.measured) {
		return 0
	}
	return c.last.Sub(c.measured).Seconds()
}

// StartTime is when the clock started (the warm-up's start).
func (c *Clock) StartTime() time.Time { return c.start }

// MeasuredStart is when the measured part of the step began.
func (c *Clock) MeasuredStart() time.Time { return c.measured }

func (c *Clock) tick(now time.Time) {
	iv := &c.scratch
	for i := range iv.Ops {
		if iv.Ops[i] != nil {
			iv.Ops[i].Ops, iv.Ops[i].Rows, iv.Ops[i].Errors = 0, 0, 0
			// A reset clears every count (188 KB): skip it when there
			// is nothing to clear.
			if iv.Ops[i].Hist.TotalCount() != 0 {
				iv.Ops[i].Hist.Reset()
			}
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
			if o.Hist.TotalCount() == 0 {
				// The first worker with this operation: take its
				// histogram and give it the interval's empty one, rather
				// than merging it and clearing it (an operation is
				// usually one worker's).
				o.Hist, oc.hist = oc.hist, o.Hist
			} else {
				o.Hist.Merge(oc.hist)
			}
		}
		r.giveBack(counts)
	}
	iv.Index = c.index
	iv.Loop = c.loopID
	iv.Start = c.last
	iv.Seconds = now.Sub(c.last).Seconds()
	// An interval that ends by the end of the warm-up is warm-up (the tick
	// may land a little late: half an interval of slack).
	warmEnd := c.start.Add(c.warmup)
	iv.Warmup = c.warmup > 0 && now.Before(warmEnd.Add(c.interval/2))
	switch {
	case c.steadyDone:
	case iv.Warmup:
		if c.steady == nil && !now.Before(warmEnd.Add(-c.interval/2)) {
			// The fixed warm-up's last interval.
			c.endWarmup(warmEnd)
		}
	case c.steady != nil:
		// The steady-state phase: warm-up until the rule holds; the
		// interval that completes the window is its last.
		iv.Warmup = true
		if c.steady.Add(iv.Seconds, c.steadyValue(iv)) || c.steady.GaveUp() {
			c.endWarmup(now)
		}
	default:
		c.endWarmup(c.measured)
	}
	c.index++
	c.last = now
	if iv.Warmup {
		for _, h := range c.hooks {
			h(iv)
		}
		return
	}
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
	if Judged(iv.Seconds, c.interval.Seconds(), len(c.secs) == 0) {
		for op := range c.rates {
			c.rates[op] = append(c.rates[op], iv.Rate(Op(op)))
		}
		c.secs = append(c.secs, iv.Seconds)
	}
	for _, h := range c.hooks {
		h(iv)
	}
}

// Total returns the step totals for op (nil if it never happened). Valid
// after Stop.
func (c *Clock) Total(op Op) *OpInterval { return c.total[op] }

// Rates returns the per-interval rates of op in its unit (rows/s or
// operations/s), of the intervals that count for percentiles and stalls.
func (c *Clock) Rates(op Op) []float64 { return c.rates[op] }

// RateSeconds returns the lengths of the intervals Rates covers.
func (c *Clock) RateSeconds() []float64 { return c.secs }

// Interval is the nominal interval length.
func (c *Clock) Interval() time.Duration { return c.interval }

// StartAt starts the clock at t without its ticking goroutine: intervals
// close only when Tick is called. It replays a series of intervals exactly
// (deterministic tests of everything that consumes intervals).
func (c *Clock) StartAt(t time.Time) {
	c.start, c.last = t, t
	c.measured = t.Add(c.warmup)
	c.measuring = make(chan struct{})
	c.steadyDone = false
	if c.steady == nil && c.warmup == 0 {
		c.endWarmup(t)
	}
}

// endWarmup starts the measured part at t.
func (c *Clock) endWarmup(t time.Time) {
	c.steadyDone = true
	c.measured = t
	close(c.measuring)
}

// Tick closes the current interval at now (clocks started with StartAt).
func (c *Clock) Tick(now time.Time) { c.tick(now) }

// StopAt ends a clock started with StartAt; a last interval is closed at
// now when it is later than the last tick.
func (c *Clock) StopAt(now time.Time) {
	if now.After(c.last) {
		c.tick(now)
	}
	c.end = c.last
	if !c.steadyDone {
		c.endWarmup(c.last)
	}
}
