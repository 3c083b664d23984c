package sysmetrics

import "math/bits"

// counterDelta returns cur-prev for a cumulative counter of width wbits that
// may have wrapped once between two samples. A decrease that cannot be a
// single wrap (the implied delta would exceed half the counter's range, or
// prev does not fit the width) is a reset: ok is false and the caller decides.
func counterDelta(prev, cur uint64, wbits uint) (d uint64, ok bool) {
	if cur >= prev {
		return cur - prev, true
	}
	max := uint64(1)<<wbits - 1
	if wbits >= 64 {
		max = ^uint64(0)
	}
	if prev > max || cur > max {
		return 0, false
	}
	d = (max - prev) + cur + 1
	if d > max/2 {
		return 0, false
	}
	return d, true
}

// kernelWordBits is the width of the kernel's unsigned long counters
// (/proc/diskstats). A 64-bit binary implies a 64-bit kernel; a 32-bit binary
// is assumed to run on a 32-bit kernel, and the half-range rule in
// counterDelta keeps a wrong guess from inventing traffic.
const kernelWordBits = bits.UintSize

// key names one member of a measured set: a process (pid + start time, so a
// reused pid is a new member), a thread, or the device (zero key).
type key struct {
	pid   int
	tid   int
	start uint64
}

// setCounter follows one cumulative counter summed over a set of members
// that can change between samples (processes of a server tree, threads).
// Deltas are taken per member, so members that come and go never turn into
// negative or wrapped sums.
type setCounter struct {
	width uint
	// hold makes the counter a total taken whole at each sample (a process
	// tree's, the zero key only). It may dip for one sample while a
	// member's counts move to its parent (a child reaped while the set was
	// read, after its parent): a decrease counts nothing and the highest
	// total is kept, so what comes back when the parent has the counts is
	// not counted again. A total still below the highest at the next
	// sample lost those counts for good (a child reaped outside the set,
	// or without a wait): the lower total becomes the base, so later work
	// is not swallowed by the gap.
	hold    bool
	last    map[key]uint64
	started bool
	// dipped: the last sample of a hold counter was below the highest
	// total; low is that sample's total.
	dipped bool
	low    uint64
}

// observe takes one sample: vals holds the members whose counter could be
// read, alive every member that still exists (nil: the keys of vals). A
// member alive but unreadable keeps its last value, so its progress is
// counted when it becomes readable again. It returns the delta since the
// previous sample; ok is false for the first sample (the baseline) and for a
// missing sample (vals nil), in which case the next good sample's delta
// spans the gap.
//
// A member absent from the previous sample was born since (the set is
// re-walked every sample), so all of its count is new. A member's counter
// that goes down is a new incarnation (reused tid) and also counts in full.
// A member that exits between samples loses its count since the last sample.
func (c *setCounter) observe(vals map[key]uint64, alive map[key]bool) (delta uint64, ok bool) {
	if vals == nil {
		return 0, false
	}
	if c.hold {
		return c.observeTotal(vals[key{}])
	}
	next := make(map[key]uint64, len(vals))
	for k, v := range vals {
		next[k] = v
		if !c.started {
			continue
		}
		p, seen := c.last[k]
		if !seen {
			delta += v
			continue
		}
		d, good := counterDelta(p, v, c.width)
		if !good {
			d = v
		}
		delta += d
	}
	for k, v := range c.last {
		if _, have := next[k]; have {
			continue
		}
		if alive != nil && alive[k] {
			next[k] = v
		}
	}
	first := !c.started
	c.last, c.started = next, true
	return delta, !first
}

// observeTotal is observe for a hold counter: v is the set's total.
func (c *setCounter) observeTotal(v uint64) (delta uint64, ok bool) {
	if !c.started {
		c.last, c.started = map[key]uint64{{}: v}, true
		return 0, false
	}
	switch hw := c.last[key{}]; {
	case v >= hw:
		delta = v - hw
		c.last[key{}], c.dipped = v, false
	case !c.dipped:
		c.dipped, c.low = true, v
	default:
		// Below the highest twice in a row: what was done since the
		// first dip is new.
		if v > c.low {
			delta = v - c.low
		}
		c.last[key{}], c.dipped = v, false
	}
	return delta, true
}

// reset forgets all members: the next sample is a new baseline.
func (c *setCounter) reset() {
	c.last, c.started, c.dipped = nil, false, false
}
