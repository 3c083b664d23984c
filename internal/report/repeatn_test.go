package report

import (
	"strings"
	"testing"

	"rumbench/internal/stats"
)

// The thresholds the run states at its start are those the statistics
// apply: 4 per side for the U test to reach p ≤ 0.05 (4 vs 4: 2/70), 6 for
// a finite 95% interval of the median (1 − 2/64 ≥ 95%, 1 − 2/32 not).
func TestRepeatThresholds(t *testing.T) {
	for n := 2; n <= 7; n++ {
		st := stats.New(seq(1, float64(n)))
		c := stats.Compare(stats.New(seq(1, float64(n))), stats.New(seq(101, float64(100+n))))
		line := RepeatCaveat(n)
		if strings.Contains(line, "\n") {
			t.Errorf("n=%d: caveat is not one line: %q", n, line)
		}
		// What the line promises is what the tables show.
		if says := strings.Contains(line, "±∞"); says != (st.CIText() == "±∞") {
			t.Errorf("n=%d: line %q, but the tables show %s", n, line, st.CIText())
		}
		if says := strings.Contains(line, "marked ?"); says != (c.Mark() == "?") {
			t.Errorf("n=%d: line %q, but a comparison is marked %q", n, line, c.Mark())
		}
	}
}

// With fewer repetitions than a finite interval needs, the summary's
// relative-rate chart draws no bar (old code's summary chart drew the
// min–max spread where the tables said ±∞); from 6 on it draws the 95%
// interval.
func TestSummaryChartNoBarWithoutInterval(t *testing.T) {
	chart := func(n int) string {
		rep := fixture(t, 0)
		for _, sr := range rep.Steps {
			for _, row := range sr.Rows {
				if n == 0 {
					continue
				}
				v, _ := row.Throughput(sr)
				vals := make([]float64, n)
				for i := range vals {
					vals[i] = v.V * (0.8 + 0.4*float64(i)/float64(n-1))
				}
				row.Stats = map[string]*stats.Stat{"rate_avg": stats.New(vals)}
			}
		}
		c, err := rep.relativeChart()
		if err != nil || c == nil {
			t.Fatalf("summary chart: %v %v", c, err)
		}
		return c.Title + "\n" + string(c.SVG)
	}
	plain := chart(0)
	if got := chart(3); got != plain {
		t.Errorf("3 repetitions: the chart differs from one without repetitions (a bar where the tables say ±∞)")
	}
	if got := chart(6); got == plain || !strings.Contains(got, "95% CI") {
		t.Errorf("6 repetitions: no interval bars drawn")
	}
}

func seq(from, to float64) []float64 {
	var v []float64
	for x := from; x <= to; x++ {
		v = append(v, x)
	}
	return v
}
