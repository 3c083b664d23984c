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

// FindStalls finds the stalls in a step's intervals: rates[i] is interval
// i's rate and secs[i] its length. Intervals after the last one with any
// progress are not stalls: the operation had finished (e.g. a client done
// before the others). An operation that never progressed has no stalls.
func FindStalls(rates, secs []float64) Stalls {
	n := len(rates)
	if len(secs) < n {
		n = len(secs)
	}
	for n > 0 && rates[n-1] <= 0 {
		n--
	}
	var s Stalls
	if n == 0 {
		return s
	}
	med := Median(rates[:n])
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
