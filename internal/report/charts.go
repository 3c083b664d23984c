package report

import (
	"fmt"
	"image/color"
	"math"
	"sort"

	"rumbench/internal/chart"
	"rumbench/internal/measure"
	"rumbench/internal/units"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Chart is one rendered SVG chart (the toolkit's, internal/chart).
type Chart = chart.Chart

// Series is one line of a LineChart.
type Series = chart.Series

// LineChart draws one line with point markers per series (in the report's
// run colours), x ticks at xticks, labelled in engineering notation (see
// chart.Lines). It returns nil when there are fewer than 3 points in all.
func LineChart(title, xlabel, ylabel string, xticks []float64, series []Series) (*Chart, error) {
	return chart.Lines(title, xlabel, ylabel, xticks, series, units.Eng)
}

// newPlot returns a plot in the report's style, its ticks labelled in
// engineering notation.
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	return chart.NewPlot(title, xlabel, ylabel, units.Eng)
}

// stepCharts draws a step's interval charts: the throughput of each
// operation with a rate (the step's own operations, in the workload's
// order) with stalled intervals shaded and crossed, then the main
// operation's p99 and max latency, then the engine's own log and
// background writes per interval when the runs recorded them.
func (r *Report) stepCharts(sr *StepReport) ([]Chart, error) {
	var out []Chart
	for _, spec := range r.chartOps(sr) {
		c, err := r.throughputChart(sr, spec)
		if err != nil {
			return nil, err
		}
		if c != nil {
			out = append(out, *c)
		}
	}
	for _, draw := range []func(*StepReport) (*Chart, error){r.latencyChart, r.internalsChart} {
		c, err := draw(sr)
		if err != nil {
			return nil, err
		}
		if c != nil {
			out = append(out, *c)
		}
	}
	return out, nil
}

// chartOps are the operations charted for a step: the judged ones that ran
// in any run, in the first declaring run's order.
func (r *Report) chartOps(sr *StepReport) []measure.OpSpec {
	var out []measure.OpSpec
	seen := map[string]bool{}
	for _, row := range sr.Rows {
		s := row.B.Steps[sr.Name]
		if s == nil {
			continue
		}
		logged := map[string]bool{}
		for _, iv := range stepIntervals(row.B.Intervals, sr.Name) {
			for op, o := range iv.Ops {
				logged[op] = logged[op] || o.Ops > 0
			}
		}
		for _, spec := range row.Run.Bundle.Run.Ops {
			if seen[spec.Name] || !spec.Judged() || (s.Ops[spec.Name] == nil && !logged[spec.Name]) {
				continue
			}
			seen[spec.Name] = true
			out = append(out, spec)
		}
	}
	return out
}

func (r *Report) series(sr *StepReport, i int, spec measure.OpSpec) []IntervalPoint {
	row := sr.Rows[i]
	if row.Status == StatusNotRun {
		return nil
	}
	s := row.B.Steps[sr.Name]
	ivs := stepIntervals(row.B.Intervals, sr.Name)
	return opSeries(ivs, spec, stallRule(s, spec.Name), nominalInterval(s, ivs))
}

// rateSeries is series for a rate chart: a paced operation (a query step's
// background writers, which write a batch every period) is plotted over
// the windows its stall rule judges, each holding whole batches, so that
// it does not zig-zag between 0 and twice its target at short intervals.
func (r *Report) rateSeries(sr *StepReport, i int, spec measure.OpSpec) []IntervalPoint {
	pts := dropShortTail(r.series(sr, i, spec))
	return groupPoints(pts, stallRule(sr.Rows[i].B.Steps[sr.Name], spec.Name).Group)
}

// dropShortTail leaves out a step's last interval when it is too short to
// judge (the partial one before the step's end): its rate is a few
// operations over a few milliseconds and would draw a drop the engine did
// not make. The interval log and every figure keep it.
func dropShortTail(pts []IntervalPoint) []IntervalPoint {
	if n := len(pts); n > 1 && pts[n-1].Short {
		return pts[:n-1]
	}
	return pts
}

// repSeries is one repetition's per-interval rate of an operation, grouped
// as rateSeries does.
func repSeries(b *Bundle, step string, spec measure.OpSpec) []IntervalPoint {
	s := b.Steps[step]
	if s == nil {
		return nil
	}
	ivs := stepIntervals(b.Intervals, step)
	rule := stallRule(s, spec.Name)
	return groupPoints(dropShortTail(opSeries(ivs, spec, rule, nominalInterval(s, ivs))), rule.Group)
}

// groupPoints merges each run of group consecutive points into one: the
// rate over their summed seconds, stalled if any was (the stall rule marks
// a whole window). A trailing partial window joins the one before it, as
// measure.GroupRates does. Latency fields are dropped: a rate chart's.
func groupPoints(pts []IntervalPoint, group int) []IntervalPoint {
	if group <= 1 || len(pts) == 0 {
		return pts
	}
	var out []IntervalPoint
	for lo := 0; lo < len(pts); {
		hi := lo + group
		if len(pts)-hi < group {
			hi = len(pts)
		}
		g := IntervalPoint{T: pts[hi-1].T}
		done := 0.0
		for _, p := range pts[lo:hi] {
			g.Seconds += p.Seconds
			done += p.Rate * p.Seconds
			g.Present = g.Present || p.Present
			g.Stalled = g.Stalled || p.Stalled
		}
		if g.Seconds > 0 {
			g.Rate = done / g.Seconds
		}
		out = append(out, g)
		lo = hi
	}
	return out
}

// logRates reports whether a rate chart's runs differ by more than 10×
// (their median interval rates): a linear axis would flatten the slower
// ones against zero.
func logRates(medians []float64) bool {
	lo, hi := math.Inf(1), 0.0
	for _, m := range medians {
		if m > 0 {
			lo, hi = math.Min(lo, m), math.Max(hi, m)
		}
	}
	return hi > 10*lo
}

func medianRate(pts []IntervalPoint) float64 {
	var v []float64
	for _, p := range pts {
		if p.Present && p.Rate > 0 {
			v = append(v, p.Rate)
		}
	}
	if len(v) == 0 {
		return 0
	}
	sort.Float64s(v)
	return v[len(v)/2]
}

func (r *Report) throughputChart(sr *StepReport, spec measure.OpSpec) (*Chart, error) {
	title := fmt.Sprintf("%s: %s per interval", sr.Name, spec.Name)
	p := newPlot(title, "seconds since step start", spec.UnitLabel())
	var entries []chart.LegendEntry
	var bands []*plotter.Polygon
	ymax, stalls, points := 0.0, false, 0
	var medians []float64
	for i := range sr.Rows {
		if pts := r.rateSeries(sr, i, spec); pts != nil {
			medians = append(medians, medianRate(pts))
		}
	}
	logY := logRates(medians)
	// A log axis cannot show 0: intervals with nothing done sit at a
	// floor a decade below the smallest rate drawn.
	floor := math.Inf(1)
	for i := range sr.Rows {
		for _, pt := range r.rateSeries(sr, i, spec) {
			if pt.Rate > 0 {
				floor = math.Min(floor, pt.Rate/10)
			}
		}
	}
	if math.IsInf(floor, 1) {
		logY = false
	}
	yOf := func(v float64) float64 {
		if logY {
			return math.Max(v, floor)
		}
		return v
	}
	for i := range sr.Rows {
		pts := r.rateSeries(sr, i, spec)
		if pts == nil {
			continue
		}
		points += len(pts)
		// A repeated run: every repetition faint, the median one (pts)
		// drawn over them.
		faint, _, hiRep, err := addFaintReps(p, sr, i, spec, func(pt IntervalPoint) (float64, bool) { return yOf(pt.Rate), true })
		if err != nil {
			return nil, fmt.Errorf("chart %s: %w", title, err)
		}
		ymax = math.Max(ymax, hiRep)
		xys := make(plotter.XYs, len(pts))
		var stalled plotter.XYs
		for j, pt := range pts {
			xys[j] = plotter.XY{X: pt.T, Y: yOf(pt.Rate)}
			ymax = math.Max(ymax, pt.Rate)
			if pt.Stalled {
				stalled = append(stalled, xys[j])
			}
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, fmt.Errorf("chart %s: %w", title, err)
		}
		l.Color = chart.Color(i)
		l.Width = vg.Points(1.5)
		p.Add(l)
		thumbs := []plot.Thumbnailer{l}
		if len(xys) == 1 {
			// A single interval has no line to draw: show it as a point.
			s, err := plotter.NewScatter(xys)
			if err != nil {
				return nil, fmt.Errorf("chart %s: %w", title, err)
			}
			s.GlyphStyle = draw.GlyphStyle{Color: chart.Color(i), Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
			p.Add(s)
		}
		for _, pt := range pts {
			if pt.Stalled {
				bands = append(bands, stallBand(pt, chart.Color(i)))
			}
		}
		if len(stalled) > 0 {
			stalls = true
			s, err := plotter.NewScatter(stalled)
			if err != nil {
				return nil, fmt.Errorf("chart %s: %w", title, err)
			}
			s.GlyphStyle = draw.GlyphStyle{Color: chart.Color(i), Radius: vg.Points(4), Shape: draw.CrossGlyph{}}
			p.Add(s)
		}
		name := runName(sr.Rows[i].Run)
		if faint > 0 {
			name += fmt.Sprintf(" (median repetition; %d others faint)", faint)
		}
		entries = append(entries, chart.LegendEntry{Name: name, Thumbs: thumbs})
	}
	if len(entries) == 0 || points < chart.MinPoints {
		return nil, nil
	}
	top := ymax * 1.08
	if top <= 0 {
		top = 1
	}
	bottom := 0.0
	if logY {
		top, bottom = ymax*2, floor
	}
	for _, b := range bands {
		// Bands span the whole height: scale their unit height to the axis.
		for k := range b.XYs[0] {
			b.XYs[0][k].Y = bottom + b.XYs[0][k].Y*(top-bottom)
		}
		p.Add(b)
	}
	if stalls {
		entries = append(entries, chart.LegendEntry{Name: "stalled interval (shaded, ×): rate < 50% of the step median, or none", Thumbs: []plot.Thumbnailer{stallThumb{}}})
	}
	// Time starts at the step's start, so the first interval's band shows.
	p.X.Min = 0
	p.Y.Min, p.Y.Max = bottom, top
	if logY {
		p.Title.Text += " (log scale: the runs differ by more than 10×)"
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = engTicks{plot.LogTicks{Prec: -1}}
	}
	if g := groupOf(sr, spec); g > 1 {
		p.Title.Text += fmt.Sprintf(" — over windows of %d intervals, each holding whole batches", g)
	}
	svg, err := chart.Render(p, chart.Width, chart.Height, entries)
	if err != nil {
		return nil, err
	}
	return &Chart{Title: p.Title.Text, SVG: svg}, nil
}

// groupOf is the largest window (in intervals) the runs' stall rules group
// an operation's intervals by in a step.
func groupOf(sr *StepReport, spec measure.OpSpec) int {
	g := 1
	for _, row := range sr.Rows {
		if s := row.B.Steps[sr.Name]; s != nil && row.Status != StatusNotRun {
			g = max(g, stallRule(s, spec.Name).Group)
		}
	}
	return g
}

// addFaintReps draws, for a repeated run (row i), every repetition but the
// median one as a faint line of y over the step's time (points where y is
// not ok are left out), and returns how many it drew and the range of the
// values it drew (+Inf, -Inf for none).
func addFaintReps(p *plot.Plot, sr *StepReport, i int, spec measure.OpSpec, y func(IntervalPoint) (float64, bool)) (n int, lo, hi float64, err error) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, b := range sr.Rows[i].Reps {
		if b == sr.Rows[i].B {
			continue
		}
		var xys plotter.XYs
		for _, pt := range repSeries(b, sr.Name, spec) {
			if v, ok := y(pt); ok {
				xys = append(xys, plotter.XY{X: pt.T, Y: v})
			}
		}
		if len(xys) < 2 {
			continue
		}
		for _, xy := range xys {
			lo, hi = math.Min(lo, xy.Y), math.Max(hi, xy.Y)
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return 0, lo, hi, err
		}
		l.Color = chart.Faded(chart.Color(i), 70)
		l.Width = vg.Points(0.8)
		p.Add(l)
		n++
	}
	return n, lo, hi, nil
}

// stallBand shades one stalled interval, unit height (scaled later).
func stallBand(pt IntervalPoint, c color.RGBA) *plotter.Polygon {
	x0 := pt.T - pt.Seconds
	poly, err := plotter.NewPolygon(plotter.XYs{{X: x0, Y: 0}, {X: pt.T, Y: 0}, {X: pt.T, Y: 1}, {X: x0, Y: 1}})
	if err != nil {
		return &plotter.Polygon{}
	}
	poly.Color = chart.Faded(c, 50)
	poly.LineStyle.Width = 0
	return poly
}

// stallThumb is the legend mark of a stalled interval.
type stallThumb struct{}

func (stallThumb) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(color.NRGBA{R: 0x80, G: 0x80, B: 0x80, A: 60}, c.ClipPolygonY([]vg.Point{
		{X: c.Min.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Min.X, Y: c.Max.Y},
	}))
	c.DrawGlyph(draw.GlyphStyle{Color: color.Black, Radius: vg.Points(4), Shape: draw.CrossGlyph{}}, c.Center())
}

func (r *Report) latencyChart(sr *StepReport) (*Chart, error) {
	op := ""
	for _, row := range sr.Rows {
		if row.Status != StatusNotRun && row.MainOp != "" {
			op = row.MainOp
			break
		}
	}
	if op == "" || !sr.Main.Judged() {
		// An operation done in lumps (an index build, a maintenance
		// action) has a latency only in the intervals where one ended:
		// a point per lump says nothing over time; the table has its max.
		return nil, nil
	}
	title := fmt.Sprintf("%s: %s latency per interval, p99 (solid) and max (dashed)", sr.Name, op)
	p := newPlot(title, "seconds since step start", "ms (log scale)")
	var entries []chart.LegendEntry
	lo, hi, points := math.Inf(1), 0.0, 0
	// Log axes cannot show 0: sub-resolution latencies sit at the floor.
	const floor = 0.001
	spec := sr.Main
	spec.Name = op
	for i := range sr.Rows {
		pts := r.series(sr, i, spec)
		if pts == nil {
			continue
		}
		// A repeated run: every repetition's p99 faint, the median
		// one's (pts) drawn over them.
		faint, loRep, hiRep, err := addFaintReps(p, sr, i, spec, func(pt IntervalPoint) (float64, bool) { return math.Max(pt.P99Ms, floor), pt.Present })
		if err != nil {
			return nil, fmt.Errorf("chart %s: %w", title, err)
		}
		lo, hi = math.Min(lo, loRep), math.Max(hi, hiRep)
		var p99, mx plotter.XYs
		for _, pt := range pts {
			if !pt.Present {
				continue
			}
			p99 = append(p99, plotter.XY{X: pt.T, Y: math.Max(pt.P99Ms, floor)})
			mx = append(mx, plotter.XY{X: pt.T, Y: math.Max(pt.MaxMs, floor)})
			lo = math.Min(lo, math.Max(pt.P99Ms, floor))
			hi = math.Max(hi, math.Max(pt.MaxMs, floor))
		}
		if len(p99) == 0 {
			continue
		}
		points += len(p99)
		var thumbs []plot.Thumbnailer
		for k, xys := range []plotter.XYs{p99, mx} {
			l, s, err := plotter.NewLinePoints(xys)
			if err != nil {
				return nil, fmt.Errorf("chart %s: %w", title, err)
			}
			l.Color = chart.Color(i)
			l.Width = vg.Points(1.5)
			s.GlyphStyle = draw.GlyphStyle{Color: chart.Color(i), Radius: vg.Points(1.5), Shape: draw.CircleGlyph{}}
			if k == 1 {
				l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
			}
			p.Add(l, s)
			thumbs = append(thumbs, l)
		}
		name := runName(sr.Rows[i].Run)
		if faint > 0 {
			name += fmt.Sprintf(" (median repetition; %d others' p99 faint)", faint)
		}
		entries = append(entries, chart.LegendEntry{Name: name, Thumbs: thumbs[:1]})
	}
	if len(entries) == 0 || points < chart.MinPoints {
		return nil, nil
	}
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = engTicks{plot.LogTicks{Prec: -1}}
	p.X.Min = 0
	p.Y.Min = lo / 2
	p.Y.Max = math.Max(hi*2, p.Y.Min*10)
	svg, err := chart.Render(p, chart.Width, chart.Height, entries)
	if err != nil {
		return nil, err
	}
	return &Chart{Title: title, SVG: svg}, nil
}
