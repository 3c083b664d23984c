package report

import (
	"testing"

	"rumbench/internal/results"
)

// TestNoLatencyChartForLumps: l.x's index builds end in a few intervals of
// many; a latency chart of them would be a point per build, so l.x gets
// none however many intervals it logged, while l.i0 keeps its own.
func TestNoLatencyChartForLumps(t *testing.T) {
	bs, err := Load([]string{"testdata/run1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bs {
		var more []results.IntervalRecord
		for _, iv := range b.Intervals {
			if iv.Step != "l.x" {
				continue
			}
			for i := 1; i <= 8; i++ { // 8 more intervals, as a longer l.x logs
				c := iv
				c.Index, c.StartMs = iv.Index+i, iv.StartMs+int64(i*1000)
				more = append(more, c)
			}
		}
		b.Intervals = append(b.Intervals, more...)
	}
	rep, err := Build(bs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, sr := range rep.Steps {
		if sr.Name != "l.x" && sr.Name != "l.i0" {
			continue
		}
		seen++
		c, err := rep.latencyChart(sr)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := c != nil, sr.Name == "l.i0"; got != want {
			t.Errorf("%s: latency chart drawn %v, want %v", sr.Name, got, want)
		}
	}
	if seen != 2 {
		t.Fatalf("the fixture has %d of l.x and l.i0, want both", seen)
	}
}
