package report

import (
	"fmt"

	"rumbench/internal/stats"
)

// RepeatCaveat is one line saying what n repetitions of each run can and
// cannot show, printed when a repeated run starts (the thresholds are the
// ones the report's statistics use).
func RepeatCaveat(n int) string {
	t, ci := stats.MinRepsForTest(), stats.MinRepsForInterval()
	head := fmt.Sprintf("--repeat %d: medians over %d runs each;", n, n)
	switch {
	case n < t:
		return fmt.Sprintf("%s too few to tell a difference (the U test needs %d per side to reach p ≤ %.2f: ratios are marked ?, never ~) or to bound a median (a finite %.0f%% interval needs %d: tables say ±∞, charts draw no bar)",
			head, t, stats.Alpha, stats.Confidence*100, ci)
	case n < ci:
		return fmt.Sprintf("%s differences are tested (~: not significant at %.2f), but a median's %.0f%% interval needs %d runs: tables say ±∞, charts draw no bar",
			head, stats.Alpha, stats.Confidence*100, ci)
	}
	return fmt.Sprintf("%s differences are tested (~: not significant at %.2f) and medians get %.0f%% intervals (at least %d runs)", head, stats.Alpha, stats.Confidence*100, ci)
}
