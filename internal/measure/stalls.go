package measure

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

// FindStalls finds the stalls of an operation in a count-bounded step (one
// that ends when its workers have done their work, e.g. l.i0, l.i1):
// rates[i] is interval i's rate and secs[i] its length. Intervals after the
// last one with any progress are not stalls: the operation had finished
// (e.g. a client done before the others, or the inserter done while the
// deleter catches up). An operation that never progressed has no stalls.
// Time-bounded steps use FindStallsTimed.
func FindStalls(rates, secs []float64) Stalls {
	n := min(len(rates), len(secs))
	for n > 0 && rates[n-1] <= 0 {
		n--
	}
	return stallsIn(rates[:n], secs[:n])
}

// FindStallsTimed finds the stalls of an operation in a time-bounded step
// (query steps qr*, qp*), whose workers are meant to run for the step's
// whole timed window: the first window intervals (see TimedWindow). Every
// interval of the window is judged, so an operation that stops early, or
// never progresses at all, stalls until the window's end.
func FindStallsTimed(rates, secs []float64, window int) Stalls {
	n := min(len(rates), len(secs), max(window, 0))
	return stallsIn(rates[:n], secs[:n])
}

// TimedWindow returns how many leading intervals of a time-bounded step its
// timed workers ran in, given each worker operation's per-interval rates
// (inserts and queries in a query step): up to the last interval in which
// any of them progressed. Later intervals are the step's wind-down (the
// deleter's catch-up after the last slot), not stalls. When none of them
// ever progressed the whole step is the window.
func TimedWindow(series ...[]float64) int {
	n, last := 0, 0
	for _, s := range series {
		n = max(n, len(s))
		for i := len(s) - 1; i >= last; i-- {
			if s[i] > 0 {
				last = i + 1
				break
			}
		}
	}
	if last == 0 {
		return n
	}
	return last
}

// stallsIn judges every interval of rates against their median.
func stallsIn(rates, secs []float64) Stalls {
	n := len(rates)
	var s Stalls
	if n == 0 {
		return s
	}
	med := Median(rates)
	run := 0.0
	for i := 0; i < n; i++ {
		if !IsStall(rates[i], med) {
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
	s.Seconds = round3(s.Seconds)
	s.LongestS = round3(s.LongestS)
	return s
}

func round3(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }
