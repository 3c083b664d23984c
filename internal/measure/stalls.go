package measure

import (
	"math"

	"rumbench/internal/units"
)

// StallFraction is the share of the step's median rate below which an
// interval counts as a stall (design §5).
const StallFraction = 0.5

// Stalls summarizes the stalled intervals of one operation type in a step.
// A stall is a maximal run of consecutive stalled intervals.
type Stalls struct {
	// Count is the number of stalls (runs of stalled intervals).
	Count int `json:"count"`
	// Seconds is the total length of the stalled intervals.
	Seconds float64 `json:"seconds"`
	// LongestS is the length of the longest stall, seconds.
	LongestS float64 `json:"longest_s"`
}

// IsStall reports whether an interval with rate is stalled against the step
// median: no progress at all, or below StallFraction of the median.
func IsStall(rate, median float64) bool {
	return rate <= 0 || rate < StallFraction*median
}

// Judged reports whether an interval of length seconds counts for rate
// percentiles and stalls on a clock of nominal interval length: all but a
// short final one (under half the nominal length), which is too noisy to
// judge the engine by; the first measured interval always counts. The clock,
// the live line and the report all use it.
func Judged(seconds, nominal float64, first bool) bool {
	return first || seconds >= nominal/2
}

// StallRule is how a step's intervals are judged; it comes from the step's
// description, never from its name. This is the one stall rule: the live
// line, the step summary, the report tables and the chart markers all use
// StallMarks (or LiveStall, the same rule on the intervals known so far).
type StallRule struct {
	// Timed marks a time-bounded step (its workers run for a set time):
	// every interval of its timed window is judged, so an operation that
	// stops early or never starts stalls until the window's end.
	// Count-bounded steps (timed false) end when the work is done:
	// intervals after the operation's last progress are the operation
	// having finished, and an operation that never progressed has no stalls.
	Timed bool
	// Window is how many leading intervals a time-bounded step's timed
	// window covers; later intervals (e.g. a deleter catching up after the
	// window) are not judged.
	Window int
	// Group is how many consecutive judged intervals are judged as one
	// (their mean rate), for an operation that progresses in batches on a
	// schedule: in an interval shorter than the gap between its batches a
	// paced writer shows no progress by design, which is its pace, not a
	// stall. 0 or 1: every interval alone. See ForPeriod.
	Group int
}

// PeriodsPerWindow is how many of a paced operation's batch periods one
// judged window spans at least. With three, a batch that completes just
// after the window's end (latency jitter) leaves it at 2/3 of its usual
// rate, clearly not a stall, while a window that lost two of its three
// batches (the writer a whole period behind) is at 1/3, clearly one. With
// two, one late batch gives exactly half, and the interval's own length
// jitter decides.
const PeriodsPerWindow = 3

// ForPeriod is the rule for an operation that does one batch every period
// seconds (0: not paced), on a clock of interval seconds: intervals are
// grouped so that a window spans at least PeriodsPerWindow periods.
func (r StallRule) ForPeriod(period, interval float64) StallRule {
	r.Group = 1
	if period > 0 && interval > 0 {
		r.Group = max(1, int(math.Ceil(PeriodsPerWindow*period/interval-1e-9)))
	}
	return r
}

// group is r.Group, at least 1.
func (r StallRule) group() int { return max(r.Group, 1) }

// GroupRates returns the mean rate of each window of group consecutive
// rates; a trailing partial window joins the one before it (a window never
// spans fewer intervals than group, unless all of rates do).
func GroupRates(rates []float64, group int) []float64 {
	if group <= 1 {
		return rates
	}
	var out []float64
	for lo := 0; lo < len(rates); {
		hi := lo + group
		if len(rates)-hi < group {
			hi = len(rates)
		}
		sum := 0.0
		for _, x := range rates[lo:hi] {
			sum += x
		}
		out = append(out, sum/float64(hi-lo))
		lo = hi
	}
	return out
}

// WindowRates are the rates the rule judges, which rate percentiles are
// taken over too: the judged intervals' rates (a time-bounded step's timed
// window; a count-bounded step's intervals up to the operation's last
// progress), grouped by the rule.
func (r StallRule) WindowRates(rates []float64) []float64 {
	return GroupRates(rates[:r.judged(rates)], r.group())
}

// TimedWindow is the window, in intervals, of a step that runs for seconds
// with the given interval length.
func TimedWindow(seconds, interval float64) int {
	if seconds <= 0 || interval <= 0 {
		return 0
	}
	n := int(seconds/interval + 0.5)
	return max(n, 1)
}

// judged returns how many leading intervals of rates the rule judges.
func (r StallRule) judged(rates []float64) int {
	n := len(rates)
	if r.Timed {
		return min(n, max(r.Window, 0))
	}
	for n > 0 && rates[n-1] <= 0 {
		n--
	}
	return n
}

// StallMarks marks which intervals of one operation's per-interval rates
// are stalled: those of the judged intervals below StallFraction of their
// median, or without progress. rates hold only intervals long enough to
// judge (the clock's Rates).
func StallMarks(rates []float64, r StallRule) []bool {
	marks := make([]bool, len(rates))
	n := r.judged(rates)
	if n == 0 {
		return marks
	}
	// Every interval of a stalled window is marked: the window is the
	// smallest span the rule can judge.
	g := r.group()
	w := GroupRates(rates[:n], g)
	med := Median(w)
	for k, rate := range w {
		if !IsStall(rate, med) {
			continue
		}
		hi := (k + 1) * g
		if k == len(w)-1 {
			hi = n
		}
		for i := k * g; i < hi; i++ {
			marks[i] = true
		}
	}
	return marks
}

// FindStalls summarizes StallMarks: secs[i] is interval i's length.
func FindStalls(rates, secs []float64, r StallRule) Stalls {
	n := min(len(rates), len(secs))
	return SummarizeMarks(StallMarks(rates[:n], r), secs[:n])
}

// SummarizeMarks turns per-interval stall marks into stalls: runs of
// consecutive marked intervals.
func SummarizeMarks(marks []bool, secs []float64) Stalls {
	var s Stalls
	run := 0.0
	for i, m := range marks {
		if i >= len(secs) {
			break
		}
		if !m {
			run = 0
			continue
		}
		if run == 0 {
			s.Count++
		}
		run += secs[i]
		s.Seconds += secs[i]
		if run > s.LongestS {
			s.LongestS = run
		}
	}
	s.Seconds = units.RoundHalfUp(s.Seconds, 3)
	s.LongestS = units.RoundHalfUp(s.LongestS, 3)
	return s
}

// LiveStall judges the newest of rates (the intervals known so far) while
// the step runs, by the same rule as far as it can be known: against the
// median so far. An operation that has not progressed yet in the step is not
// flagged; in a count-bounded step neither is one without progress in the
// newest interval (it may have finished: the summary decides at the end);
// in a time-bounded step an interval past the window is not judged.
//
// Under a rule that groups intervals, the newest interval is judged only
// when it closes a window (a multiple of Group, or the end of the timed
// window), and then the whole window is: the live line flags a stalled
// window on its last interval.
func LiveStall(rates []float64, r StallRule) bool {
	n := len(rates)
	if n == 0 {
		return false
	}
	if r.Timed && n > r.Window {
		return false
	}
	g := r.group()
	if n%g != 0 && !(r.Timed && n == r.Window) {
		return false
	}
	if r.Timed && n < r.Window && r.Window-n < g {
		// The timed window's last intervals will join this window.
		return false
	}
	w := GroupRates(rates, g)
	cur := w[len(w)-1]
	if cur <= 0 && !r.Timed {
		return false
	}
	active := false
	for _, x := range w[:len(w)-1] {
		active = active || x > 0
	}
	if !active {
		return false
	}
	return IsStall(cur, Median(w))
}
