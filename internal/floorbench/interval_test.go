package floorbench

import (
	"context"
	"fmt"
	"os"
	"testing"
)

// BenchmarkIntervalCost checks that the interval rate does not reach the
// client's bill (issue 39): the rumbench binary ($FLOOR_BIN, built by
// scripts/intervalcost.sh) runs each step at --interval 0.1s and 10s, in an
// order swapped every round, and the table shows its client CPU per
// operation at both, their ratio (median of the rounds' ratios), and the
// measuring thread's CPU (sampler_cpu_us: the sampler's readings and the
// clock's ticks) at 0.1 s as a share of one core.
//
// Sizes: FLOOR_ENGINES (default postgres,innodb), INTERVAL_STEPS (default
// qr100), FLOOR_ROWS (default 200000), INTERVAL_SECONDS (each query step's
// length, default 20: two 10 s intervals), FLOOR_ROUNDS (default 3).
func BenchmarkIntervalCost(b *testing.B) {
	if os.Getenv("FLOOR_BIN") == "" {
		b.Skip("FLOOR_BIN unset: scripts/intervalcost.sh builds the binary")
	}
	s := settings{
		rows: envInt("FLOOR_ROWS", 200000), churn: envInt("FLOOR_CHURN", 20000),
		seconds: float64(envInt("INTERVAL_SECONDS", 20)), rounds: int(envInt("FLOOR_ROUNDS", 3)),
		steps: envList("INTERVAL_STEPS", "qr100"),
	}
	intervals := [2]string{"100ms", "10s"}
	var out []string
	for _, eng := range envList("FLOOR_ENGINES", "postgres,innodb") {
		tg := targetFor(b, eng)
		for _, step := range s.steps {
			var fast, slow, ratio, samplerShare []float64
			for r := range s.rounds {
				var got [2]binarySummary
				for k := range intervals {
					i := (k + r) % 2
					sum, err := runBinaryAt(context.Background(), tg, s, step, intervals[i])
					if err != nil {
						b.Fatalf("%s %s at %s: %v", eng, step, intervals[i], err)
					}
					got[i] = sum
				}
				share := got[0].samplerUs / (got[0].seconds * 1e6) * 100
				b.Logf("%s %s round %d: %.2f µs/op at 0.1 s, %.2f at 10 s; measuring thread %.2f%% of a core at 0.1 s", eng, step, r+1, got[0].perOp, got[1].perOp, share)
				fast, slow = append(fast, got[0].perOp), append(slow, got[1].perOp)
				ratio = append(ratio, got[0].perOp/got[1].perOp)
				samplerShare = append(samplerShare, share)
			}
			out = append(out, fmt.Sprintf("| %-8s | %-6s | %9.2f | %8.2f | %5.3f | %8.2f%% | %s |", eng, step, median(fast), median(slow), median(ratio), median(samplerShare), fmtList(ratio)))
		}
	}
	b.ReportMetric(0, "ns/op")
	fmt.Printf("\nclient CPU per op (µs) at --interval 0.1s and 10s (median of %d rounds; load %s)\n", s.rounds, loadAvg())
	fmt.Println("| engine   | step   | at 0.1 s  |  at 10 s | ratio | sampler at 0.1 s (% core) | ratios per round |")
	fmt.Println("| -------- | ------ | --------: | -------: | ----: | ------------------------: | ---------------- |")
	for _, l := range out {
		fmt.Println(l)
	}
}
