package report

import (
	"fmt"
	"math"

	"rumbench/internal/chart"
	"rumbench/internal/figure"
	"rumbench/internal/units"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ratioPoint is one run's ratio to the base on one row of a ratio chart,
// with the interval of its repetitions when it has a finite one.
type ratioPoint struct {
	run    int
	v      float64
	lo, hi float64 // NaN: no interval
}

// ratioLine is one row of a ratio chart.
type ratioLine struct {
	label  string
	points []ratioPoint
}

// ratioOf is a row's ratio of key to the base row's, with the run's 95%
// interval (from its repetitions) divided by the base's median when both
// are repeated and the interval is finite.
func ratioOf(row, base *Row, key string) (ratioPoint, bool) {
	v := row.Ratios[key]
	if row.Status == StatusNotRun || !v.OK || v.V <= 0 {
		return ratioPoint{}, false
	}
	p := ratioPoint{v: v.V, lo: math.NaN(), hi: math.NaN()}
	st, bv := row.Stats[key], base.Values[key]
	if st != nil && st.Lo != nil && bv.OK && bv.V > 0 && *st.Lo > 0 {
		p.lo, p.hi = *st.Lo/bv.V, *st.Hi/bv.V
	}
	return p, true
}

// relativeChart draws each step's headline rate relative to the base run:
// one row per step, a marker per run other than the base, on a log axis
// centred on 1 (the base), so that 2× faster and 2× slower sit equally far
// from it whatever the steps' units.
func (r *Report) relativeChart() (*Chart, error) {
	var lines []ratioLine
	for _, sr := range r.Steps {
		if oneAction(sr) {
			continue // a length, not a rate (maint)
		}
		l := ratioLine{label: sr.Name}
		base := sr.Rows[r.Base]
		for i, row := range sr.Rows {
			if i == r.Base {
				continue
			}
			if p, ok := ratioOf(row, base, figure.RateAvg); ok {
				p.run = i
				l.points = append(l.points, p)
			}
		}
		lines = append(lines, l)
	}
	title := fmt.Sprintf("headline rate of each step relative to base %s (log scale; %s is faster)", runName(r.Runs[r.Base]), figure.Must(figure.RateAvg).Better.Side("right of 1", "left of 1"))
	return r.ratioChart(title, "run / base", lines)
}

// efficiencyChart draws each step's cost per operation relative to the
// base: CPU, KB written and read per unit of the headline operation and
// the size at the step's end, a row per step and figure.
func (r *Report) efficiencyChart() (*Chart, error) {
	var lines []ratioLine
	for _, sr := range r.Steps {
		base := sr.Rows[r.Base]
		for _, k := range effKeys {
			l := ratioLine{label: sr.Name + " " + figure.Must(k).Name()}
			for i, row := range sr.Rows {
				if i == r.Base {
					continue
				}
				if p, ok := ratioOf(row, base, k); ok {
					p.run = i
					l.points = append(l.points, p)
				}
			}
			if len(l.points) > 0 {
				lines = append(lines, l)
			}
		}
	}
	title := fmt.Sprintf("efficiency per operation relative to base %s (log scale; %s is cheaper)", runName(r.Runs[r.Base]), figure.Direction(effKeys...).Side("right of 1", "left of 1"))
	return r.ratioChart(title, "run / base", lines)
}

// ratioChart draws rows of ratios on a log x axis symmetric about 1; nil
// when there is nothing to draw (one run, or no ratio at all).
func (r *Report) ratioChart(title, xlabel string, lines []ratioLine) (*Chart, error) {
	n := len(lines)
	points, span, bars := 0, 2.0, false
	for _, l := range lines {
		for _, p := range l.points {
			points++
			span = math.Max(span, math.Max(p.v, 1/p.v))
			if !math.IsNaN(p.lo) {
				span = math.Max(span, math.Max(p.hi, 1/p.lo))
				bars = true
			}
		}
	}
	if points == 0 || n == 0 {
		return nil, nil
	}
	if bars {
		title += " — bars: 95% CI of the run's median over the base's"
	}
	p := newPlot(title, xlabel, "")
	others := len(r.Runs) - 1
	entries := make([]chart.LegendEntry, len(r.Runs))
	for i, run := range r.Runs {
		entries[i].Name = runName(run)
	}
	names := make([]string, n)
	for li, l := range lines {
		y0 := float64(n - 1 - li)
		names[n-1-li] = l.label
		for k, pt := range l.points {
			y := y0
			if others > 1 {
				// Each run a little above or below the row, so equal
				// ratios stay visible.
				y += 0.5 * (0.5 - float64(k)/float64(others-1))
			}
			s, err := plotter.NewScatter(plotter.XYs{{X: pt.v, Y: y}})
			if err != nil {
				return nil, fmt.Errorf("chart %s: %w", title, err)
			}
			s.GlyphStyle = draw.GlyphStyle{Color: chart.Color(pt.run), Radius: vg.Points(3.5), Shape: draw.CircleGlyph{}}
			p.Add(s)
			if entries[pt.run].Thumbs == nil {
				entries[pt.run].Thumbs = []plot.Thumbnailer{s}
			}
			if !math.IsNaN(pt.lo) {
				eb, err := plotter.NewXErrorBars(chart.XErrorPoints{XYs: plotter.XYs{{X: pt.v, Y: y}}, XErrors: plotter.XErrors{{Low: pt.v - pt.lo, High: pt.hi - pt.v}}})
				if err != nil {
					return nil, fmt.Errorf("chart %s: %w", title, err)
				}
				eb.Color, eb.LineStyle.Width = chart.Color(pt.run), vg.Points(1.2)
				p.Add(eb)
			}
		}
	}
	// The base: a vertical line at 1.
	one, err := plotter.NewLine(plotter.XYs{{X: 1, Y: -0.6}, {X: 1, Y: float64(n) - 0.4}})
	if err != nil {
		return nil, fmt.Errorf("chart %s: %w", title, err)
	}
	one.Color, one.Width = chart.Color(r.Base), vg.Points(1.5)
	one.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(one)
	entries[r.Base].Thumbs = []plot.Thumbnailer{one}
	entries[r.Base].Name += " (base = 1)"
	var used []chart.LegendEntry
	for _, e := range entries {
		if e.Thumbs != nil {
			used = append(used, e)
		}
	}
	p.NominalY(names...)
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = ratioTicks{}
	span *= 1.3
	p.X.Min, p.X.Max = 1/span, span
	p.Y.Min, p.Y.Max = -0.6, float64(n)-0.4
	svg, err := chart.Render(p, chart.Width, vg.Length(70+22*n), used)
	if err != nil {
		return nil, err
	}
	return &Chart{Title: title, SVG: svg}, nil
}

// ratioTicks labels a log ratio axis at 1 and at 1-2-5 steps either side
// (0.5, 0.2, 0.1 ... 2, 5, 10 ...), written as ratios.
type ratioTicks struct{}

func (ratioTicks) Ticks(min, max float64) []plot.Tick {
	var out []plot.Tick
	for e := -6; e <= 6; e++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow(10, float64(e))
			if v < min || v > max {
				continue
			}
			out = append(out, plot.Tick{Value: v, Label: units.Eng(v) + "×"})
		}
	}
	return out
}
