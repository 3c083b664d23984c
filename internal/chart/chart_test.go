package chart

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

func TestLinesDrawsAnInlineSVGWithALegend(t *testing.T) {
	c, err := Lines("rate by indexes", "indexes", "rows/s", []float64{0, 1, 2},
		[]Series{{Name: "pebble", X: []float64{0, 1, 2}, Y: []float64{3, 2, math.NaN()}, Lo: []float64{2.5, math.NaN(), 0}, Hi: []float64{3.5, math.NaN(), 0}},
			{Name: "sqlite", X: []float64{0, 1, 2}, Y: []float64{1, 1, 1}}},
		func(v float64) string { return "x" })
	if err != nil || c == nil {
		t.Fatalf("Lines: %v, %v", c, err)
	}
	if !strings.HasPrefix(c.SVG, `<svg class="chart" role="img" `) || c.Title != "rate by indexes" {
		t.Errorf("not an inline SVG: %.80s", c.SVG)
	}
	for _, want := range []string{"pebble", "sqlite", "rate by indexes"} {
		if !strings.Contains(c.SVG, want) {
			t.Errorf("the chart lacks %q", want)
		}
	}
}

func TestLinesLeavesOutTooFewPoints(t *testing.T) {
	c, err := Lines("t", "x", "y", nil, []Series{{Name: "a", X: []float64{0, 1}, Y: []float64{1, math.NaN()}}}, func(float64) string { return "" })
	if err != nil || c != nil {
		t.Errorf("one point: %v, %v; want no chart", c, err)
	}
}

func TestTicksRelabelOnlyLabelledTicks(t *testing.T) {
	ticks := Ticks{plot.DefaultTicks{}, func(float64) string { return "k" }}.Ticks(0, 3000)
	labelled := 0
	for _, tk := range ticks {
		switch tk.Label {
		case "k":
			labelled++
		case "":
		default:
			t.Errorf("tick %v kept label %q", tk.Value, tk.Label)
		}
	}
	if labelled == 0 {
		t.Error("no tick labelled")
	}
}
