package measure

import (
	"context"
	"math"
	"sync/atomic"
	"time"
)

// Schedule is the timetable of one rate-limited worker: operation i (from 0)
// is intended to start at start + i*period, for the n operations whose
// intended start is before the schedule's end. The worker asks Next for its
// next slot, waits until that slot's intended start and measures response
// time from it, so a stall in the engine shows as the latency the queued
// operations would have seen (no coordinated omission), and timer overshoot
// never accumulates into drift.
//
// Backlog policy: a worker that is late may run at most Backlog due slots
// back to back (the one it is about to run included). When more slots than
// that are already due, the oldest ones are skipped: they are never run, are
// counted as missed, and Next returns them so the caller can record their
// response time so far. The schedule itself never moves, so the rate over the
// step is exactly the target unless slots were missed.
type Schedule struct {
	start    time.Time
	periodNs float64
	n        int64
	backlog  int64
	next     int64
	missed   int64
	// until, when set, replaces the fixed end: n follows it (a deadline
	// that is only known once a steady-state warm-up ends).
	until   *Deadline
	untilNs int64
	// poisson, when set, spaces the intended starts as a Poisson process
	// of the same mean rate instead of every period.
	poisson *poissonTimes
	end     time.Time // zero: none
}

// DefaultBacklog is the backlog used by the benchmark's writers: 4 slots, or
// as many as fit in 25 ms when slots are shorter, so that timer overshoot of a
// millisecond or two at high rates is absorbed rather than counted as missed.
func DefaultBacklog(period time.Duration) int {
	b := 4
	if period > 0 {
		if n := int(math.Ceil(float64(25*time.Millisecond) / float64(period))); n > b {
			b = n
		}
	}
	return b
}

// NewSchedule returns the schedule of operations of rowsPerOp rows each at
// rowsPerSec rows per second, from start until (not including) end (a zero
// end: no end, the caller counts its operations). backlog below 1 is taken
// as 1 (never catch up).
func NewSchedule(start, end time.Time, rowsPerOp int, rowsPerSec float64, backlog int) *Schedule {
	s := &Schedule{start: start, backlog: int64(max(backlog, 1))}
	if rowsPerOp > 0 && rowsPerSec > 0 {
		s.periodNs = float64(rowsPerOp) / rowsPerSec * 1e9
	}
	s.setEnd(end)
	return s
}

// NewScheduleUntil is NewSchedule with an end that may move: the schedule
// follows the deadline each time Next is called.
func NewScheduleUntil(start time.Time, until *Deadline, rowsPerOp int, rowsPerSec float64, backlog int) *Schedule {
	s := NewSchedule(start, until.Time(), rowsPerOp, rowsPerSec, backlog)
	s.until, s.untilNs = until, until.ns.Load()
	return s
}

func (s *Schedule) setEnd(end time.Time) {
	s.end = end
	if end.IsZero() {
		// No end: the caller stops asking (a count of operations).
		s.n = unknownLen
		if s.poisson != nil {
			s.poisson.endNs, s.poisson.n = math.MaxInt64, unknownLen
		}
		return
	}
	if s.poisson != nil {
		s.poisson.setEnd(end.Sub(s.start))
		s.n = s.poisson.n
		return
	}
	s.n = 0
	if s.periodNs > 0 && end.After(s.start) {
		// Slots with intended start strictly before end.
		s.n = int64(math.Ceil(float64(end.Sub(s.start)) / s.periodNs))
	}
}

// Period is the time between intended starts.
func (s *Schedule) Period() time.Duration { return time.Duration(s.periodNs) }

// Len is the number of slots in the schedule; with Poisson arrivals, those
// known so far until the schedule has run out (the slots handed out and
// skipped).
func (s *Schedule) Len() int64 {
	if s.poisson != nil && s.n == unknownLen {
		return s.next
	}
	return s.n
}

// Backlog is the most due slots run back to back.
func (s *Schedule) Backlog() int64 { return s.backlog }

// At is the intended start of slot i, computed from the start (never by
// adding periods) so rounding does not accumulate.
func (s *Schedule) At(i int64) time.Time {
	if s.poisson != nil {
		return s.start.Add(time.Duration(s.poisson.at(i)))
	}
	return s.start.Add(time.Duration(math.Round(float64(i) * s.periodNs)))
}

// SleepUntil waits until at (returning at once if it has passed) or until ctx
// ends. It reuses t, a stopped or fired timer owned by the caller, so waiting
// allocates nothing.
func SleepUntil(ctx context.Context, t *time.Timer, at time.Time) error {
	d := time.Until(at)
	if d <= 0 {
		return ctx.Err()
	}
	t.Reset(d)
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		t.Stop()
		return ctx.Err()
	}
}

// Remaining is the number of slots not yet handed out or skipped.
func (s *Schedule) Remaining() int64 { return s.n - s.next }

// Missed is the number of slots skipped so far.
func (s *Schedule) Missed() int64 { return s.missed }

// Next hands out the next slot for a worker that is ready at now. When more
// than Backlog slots are due (intended start <= now), the oldest are skipped
// first: they are slots [slot-skipped, slot). ok is false when the schedule
// has no slots left (skipped then counts the slots skipped on the way).
func (s *Schedule) Next(now time.Time) (slot int64, at time.Time, skipped int64, ok bool) {
	if s.until != nil {
		if ns := s.until.ns.Load(); ns != s.untilNs {
			s.untilNs = ns
			s.setEnd(time.Unix(0, ns))
		}
	}
	if s.poisson != nil {
		return s.nextPoisson(now)
	}
	if s.next >= s.n {
		return s.n, time.Time{}, 0, false
	}
	// Slots due at now: next .. last, where last is the newest slot whose
	// intended start is not after now.
	if el := now.Sub(s.start); el >= 0 {
		last := min(int64(float64(el)/s.periodNs), s.n-1)
		// Guard the float division against landing one slot late or early.
		for last+1 < s.n && !s.At(last+1).After(now) {
			last++
		}
		for last >= 0 && s.At(last).After(now) {
			last--
		}
		if due := last - s.next + 1; due > s.backlog {
			skipped = due - s.backlog
			s.next += skipped
			s.missed += skipped
		}
	}
	if s.next >= s.n {
		return s.n, time.Time{}, skipped, false
	}
	slot = s.next
	s.next++
	return slot, s.At(slot), skipped, true
}

// Deadline is when a time-bounded step's work ends. It is known at the
// start, or, after a steady-state warm-up, only once the measured part
// begins (Clock.Deadline); until then it is the latest the step may end.
// Safe for concurrent use.
type Deadline struct{ ns atomic.Int64 }

// FixedDeadline is a deadline known now.
func FixedDeadline(t time.Time) *Deadline {
	d := &Deadline{}
	d.ns.Store(t.UnixNano())
	return d
}

// Time is the deadline as known now.
func (d *Deadline) Time() time.Time { return time.Unix(0, d.ns.Load()) }

// Passed says whether t is at or after the deadline.
func (d *Deadline) Passed(t time.Time) bool { return t.UnixNano() >= d.ns.Load() }

// Wait returns when the deadline has passed or ctx ends (ctx's error). A
// deadline only moves earlier (when a steady-state warm-up ends), so Wait
// looks again at least every 50 ms.
func (d *Deadline) Wait(ctx context.Context) error {
	t := time.NewTimer(0)
	defer t.Stop()
	<-t.C
	for {
		left := time.Until(d.Time())
		if left <= 0 {
			return nil
		}
		t.Reset(min(left, 50*time.Millisecond))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}
