package report

import (
	"strings"
	"testing"
)

// TestInternalsChart: a step whose intervals carry the engine's counters
// gets a chart of its log and background writes per second; a step
// without them gets none.
func TestInternalsChart(t *testing.T) {
	bs, err := Load([]string{"testdata/run1"})
	if err != nil {
		t.Fatal(err)
	}
	for i, iv := range bs[0].Intervals {
		if iv.Step == "l.i0" {
			bs[0].Intervals[i].Internals = map[string]float64{"log_kb": 512, "bg_write_kb": float64(i * 100)}
			bs[0].Intervals[i].InternalsSeconds = 0.5
		}
	}
	rep, err := Build(bs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, sr := range rep.Steps {
		if sr.Name != "l.i0" && sr.Name != "l.i1" {
			continue
		}
		cs, err := rep.stepCharts(sr)
		if err != nil {
			t.Fatal(err)
		}
		var found string
		for _, c := range cs {
			if strings.Contains(c.Title, "own log and background writes") {
				found = c.SVG
			}
		}
		if want := sr.Name == "l.i0"; (found != "") != want {
			t.Errorf("%s: internals chart drawn %v, want %v", sr.Name, found != "", want)
		}
		if found != "" && (!strings.Contains(found, "<svg") || !strings.Contains(found, "background writes")) {
			t.Errorf("%s: the chart has no SVG or no background-writes series", sr.Name)
		}
	}
}
