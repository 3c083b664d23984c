package report

import (
	"fmt"
	"math"
)

// MinRepsForTest is the fewest repetitions per side (both alike) with which
// the Mann–Whitney U test can ever reach p ≤ Alpha: below it every ratio is
// marked "?", never "~" or significant. Computed from MinPossibleP, the
// rule Compare applies.
func MinRepsForTest() int {
	n := 1
	for MinPossibleP(n, n) > Alpha {
		n++
	}
	return n
}

// MinRepsForInterval is the fewest repetitions for which the median's
// Confidence interval (benchmath's order statistics, as NewStat computes
// it) is finite: below it the tables say ±∞.
func MinRepsForInterval() int {
	for n := 1; ; n++ {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(i + 1)
		}
		if st := NewStat(v); st.Lo != nil && !math.IsInf(*st.Lo, 0) {
			return n
		}
	}
}

// RepeatCaveat is one line saying what n repetitions of each run can and
// cannot show, printed when a repeated run starts (the thresholds are the
// ones the report's statistics use).
func RepeatCaveat(n int) string {
	t, ci := MinRepsForTest(), MinRepsForInterval()
	head := fmt.Sprintf("--repeat %d: medians over %d runs each;", n, n)
	switch {
	case n < t:
		return fmt.Sprintf("%s too few to tell a difference (the U test needs %d per side to reach p ≤ %.2f: ratios are marked ?, never ~) or to bound a median (a finite %.0f%% interval needs %d: tables say ±∞, charts draw no bar)",
			head, t, Alpha, Confidence*100, ci)
	case n < ci:
		return fmt.Sprintf("%s differences are tested (~: not significant at %.2f), but a median's %.0f%% interval needs %d runs: tables say ±∞, charts draw no bar",
			head, Alpha, Confidence*100, ci)
	}
	return fmt.Sprintf("%s differences are tested (~: not significant at %.2f) and medians get %.0f%% intervals (at least %d runs)", head, Alpha, Confidence*100, ci)
}
