package measure

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Arrivals is how a schedule spaces the intended starts of its operations.
type Arrivals int

const (
	// FixedArrivals: one every period, as the insert benchmark's writers.
	FixedArrivals Arrivals = iota
	// PoissonArrivals: independent arrivals at the same mean rate (gaps
	// exponentially distributed), as open-loop load generators offer
	// (sysbench --rate, YCSB): bursts queue behind each other, so latency
	// from the intended start shows what a real arrival process would see.
	PoissonArrivals
)

// ParseArrivals reads --arrivals.
func ParseArrivals(s string) (Arrivals, error) {
	switch s {
	case "", "fixed":
		return FixedArrivals, nil
	case "poisson":
		return PoissonArrivals, nil
	}
	return 0, fmt.Errorf("bad --arrivals %q: want fixed or poisson", s)
}

func (a Arrivals) String() string {
	if a == PoissonArrivals {
		return "poisson"
	}
	return "fixed"
}

// WithArrivals spaces s's intended starts by a: Poisson arrivals come from a
// source seeded with seed, so the same seed gives the same timetable. It
// returns s, and must be called before the first Next.
func (s *Schedule) WithArrivals(a Arrivals, seed uint64) *Schedule {
	if a != PoissonArrivals || s.periodNs <= 0 {
		return s
	}
	s.poisson = &poissonTimes{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), meanNs: s.periodNs, n: unknownLen, endNs: math.MaxInt64}
	s.setEnd(s.end)
	return s
}

// unknownLen is the length of a Poisson schedule before an arrival at or
// past its end has been drawn.
const unknownLen = math.MaxInt64

// poissonTimes are the intended starts (ns after the schedule's start) of
// a Poisson schedule, drawn in order and kept from the oldest slot a caller
// may still ask for (the first slot Next considered last time), so memory
// stays bounded over hours.
type poissonTimes struct {
	rng    *rand.Rand
	meanNs float64
	lo     int64   // slot of times[0]
	times  []int64 // ns after start
	lastNs float64 // the last drawn arrival
	endNs  int64
	n      int64 // the first slot at or past the end (unknownLen until drawn)
}

func (p *poissonTimes) setEnd(end time.Duration) {
	p.endNs = int64(end)
	p.n = unknownLen
	for i, t := range p.times {
		if t >= p.endNs {
			p.n = p.lo + int64(i)
			return
		}
	}
	if p.endNs <= 0 {
		p.n = 0
	}
}

// at is slot i's intended start, drawing arrivals up to it.
func (p *poissonTimes) at(i int64) int64 {
	if i < p.lo {
		panic(fmt.Sprintf("measure: Poisson schedule asked for slot %d, before the oldest kept (%d)", i, p.lo))
	}
	for p.lo+int64(len(p.times)) <= i {
		p.lastNs += p.rng.ExpFloat64() * p.meanNs
		t := int64(p.lastNs)
		if t >= p.endNs && p.n == unknownLen {
			p.n = p.lo + int64(len(p.times))
		}
		p.times = append(p.times, t)
	}
	return p.times[i-p.lo]
}

// forget drops the slots before i.
func (p *poissonTimes) forget(i int64) {
	if k := i - p.lo; k > 0 {
		if k >= int64(len(p.times)) {
			p.times = p.times[:0]
		} else {
			p.times = append(p.times[:0], p.times[k:]...)
		}
		p.lo = i
	}
}

// nextPoisson is Next on Poisson arrivals: the same backlog rule over the
// slots due at now.
func (s *Schedule) nextPoisson(now time.Time) (slot int64, at time.Time, skipped int64, ok bool) {
	p := s.poisson
	p.forget(s.next)
	el := int64(now.Sub(s.start))
	last := s.next - 1
	for {
		i := last + 1
		t := p.at(i)
		s.n = p.n
		if i >= s.n || t > el {
			break
		}
		last = i
	}
	if due := last - s.next + 1; due > s.backlog {
		skipped = due - s.backlog
		s.next += skipped
		s.missed += skipped
	}
	if s.next >= s.n {
		return s.n, time.Time{}, skipped, false
	}
	slot = s.next
	s.next++
	return slot, s.start.Add(time.Duration(p.at(slot))), skipped, true
}
