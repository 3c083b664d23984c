// Package chart is rumbench's SVG chart toolkit over gonum/plot: the
// reports' style (sans-serif text, grid, a colour per run), drawing a plot
// with its legend below it as an SVG element to inline in HTML, tick
// labels in a given notation, and a line chart of series. It knows
// nothing of runs, figures or workloads; the report, the sweep's summary
// charts and the results history draw with it.
package chart

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Chart is one rendered SVG chart.
type Chart struct {
	Title string
	SVG   string
}

// A chart's size, pt.
const (
	Width  = 720
	Height = 250
	// legendLine is a legend line's height, pt.
	legendLine = 15
)

// MinPoints is the fewest points a chart is drawn for: fewer say more as
// a table row (a step of one interval, a bar per engine of two).
const MinPoints = 3

// palette gives each run the same colour in every chart (Tableau 10).
var palette = []color.RGBA{
	{0x4e, 0x79, 0xa7, 0xff}, {0xf2, 0x8e, 0x2b, 0xff}, {0xe1, 0x57, 0x59, 0xff}, {0x76, 0xb7, 0xb2, 0xff},
	{0x59, 0xa1, 0x4f, 0xff}, {0xed, 0xc9, 0x48, 0xff}, {0xb0, 0x7a, 0xa1, 0xff}, {0xff, 0x9d, 0xa7, 0xff},
	{0x9c, 0x75, 0x5f, 0xff}, {0xba, 0xb0, 0xac, 0xff},
}

// Color is the i-th run's colour.
func Color(i int) color.RGBA { return palette[i%len(palette)] }

// Faded is c with alpha a.
func Faded(c color.RGBA, a uint8) color.NRGBA { return color.NRGBA{R: c.R, G: c.G, B: c.B, A: a} }

var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

// Ticks labels an axis's ticks with Label, on the ticks the wrapped
// marker chooses (engineering notation: 2.5M, not 2500000.00).
type Ticks struct {
	plot.Ticker
	Label func(float64) string
}

// Ticks implements plot.Ticker.
func (t Ticks) Ticks(min, max float64) []plot.Tick {
	ticks := t.Ticker.Ticks(min, max)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = t.Label(ticks[i].Value)
		}
	}
	return ticks
}

// NewPlot returns a plot in the reports' style: sans-serif text, grid,
// both axes' ticks labelled by label.
func NewPlot(title, xlabel, ylabel string, label func(float64) string) *plot.Plot {
	p := plot.New()
	p.Title.Text = wrap(title, titleChars)
	p.Title.TextStyle.Font = font.From(sans, 12)
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, 10)
		a.Tick.Label.Font = font.From(sans, 9)
		a.Tick.Marker = Ticks{plot.DefaultTicks{}, label}
	}
	p.Add(plotter.NewGrid())
	return p
}

// LegendEntry is one line of a chart's legend.
type LegendEntry struct {
	Name   string
	Thumbs []plot.Thumbnailer
}

// Render draws p with its legend below it and returns the SVG element.
// gonum panics on some degenerate inputs; a chart that cannot be drawn
// becomes an error, not a crash.
func Render(p *plot.Plot, w, h vg.Length, entries []LegendEntry) (svg string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("draw chart %q: %v", p.Title.Text, r)
		}
	}()
	legH := vg.Length(0)
	if len(entries) > 0 {
		legH = vg.Length(len(entries)*(legendLine+3) + 8)
	}
	c := vgsvg.New(w, h+legH)
	dc := draw.New(c)
	// A margin on the left: a browser's sans-serif can be wider than the
	// font the tick labels were measured in, and would lose their first
	// letters at the edge.
	p.Draw(draw.Crop(dc, leftMargin, 0, legH, 0))
	if len(entries) > 0 {
		leg := plot.NewLegend()
		leg.TextStyle.Font = font.From(sans, 10)
		leg.Top, leg.Left = true, true
		leg.XOffs = 40
		leg.Padding = vg.Points(3)
		for _, e := range entries {
			leg.Add(e.Name, e.Thumbs...)
		}
		leg.Draw(draw.Crop(dc, 0, 0, 0, -(h + 4)))
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return "", fmt.Errorf("write chart %q: %w", p.Title.Text, err)
	}
	return inline(buf.String()), nil
}

// inline strips the XML prolog so the SVG can sit inside HTML, and lets
// CSS scale it to the page width.
func inline(s string) string {
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	return strings.Replace(s, "<svg ", `<svg class="chart" role="img" `, 1)
}

// XErrorPoints are points with horizontal error bars.
type XErrorPoints struct {
	plotter.XYs
	plotter.XErrors
}

// yErrorPoints are points with vertical error bars.
type yErrorPoints struct {
	plotter.XYs
	plotter.YErrors
}

// Series is one line of a line chart. Lo and Hi, when set, bound each
// point (an error bar; NaN for none).
type Series struct {
	Name   string
	X, Y   []float64
	Lo, Hi []float64
}

// Lines draws one line with point markers per series (in the run
// colours), x ticks at xticks, tick labels by label. Missing points are
// left out of a line. It returns nil when there are fewer than MinPoints
// points in all.
func Lines(title, xlabel, ylabel string, xticks []float64, series []Series, label func(float64) string) (*Chart, error) {
	p := NewPlot(title, xlabel, ylabel, label)
	var entries []LegendEntry
	ymax, points := 0.0, 0
	for i, s := range series {
		var pts plotter.XYs
		for j := range s.X {
			if j < len(s.Y) && !math.IsNaN(s.Y[j]) {
				pts = append(pts, plotter.XY{X: s.X[j], Y: s.Y[j]})
				ymax = math.Max(ymax, s.Y[j])
			}
		}
		if len(pts) == 0 {
			continue
		}
		points += len(pts)
		l, sc, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, fmt.Errorf("chart %s: %w", title, err)
		}
		c := Color(i)
		l.Color, l.Width = c, vg.Points(1.5)
		sc.Color, sc.Shape, sc.Radius = c, draw.CircleGlyph{}, vg.Points(3)
		p.Add(l, sc)
		var ebs yErrorPoints
		for j := range s.X {
			if j < len(s.Lo) && j < len(s.Hi) && j < len(s.Y) && !math.IsNaN(s.Y[j]) && !math.IsNaN(s.Lo[j]) && !math.IsNaN(s.Hi[j]) {
				ebs.XYs = append(ebs.XYs, plotter.XY{X: s.X[j], Y: s.Y[j]})
				ebs.YErrors = append(ebs.YErrors, struct{ Low, High float64 }{s.Y[j] - s.Lo[j], s.Hi[j] - s.Y[j]})
				ymax = math.Max(ymax, s.Hi[j])
			}
		}
		if len(ebs.XYs) > 0 {
			eb, err := plotter.NewYErrorBars(ebs)
			if err != nil {
				return nil, fmt.Errorf("chart %s: %w", title, err)
			}
			eb.Color, eb.Width = c, vg.Points(1.2)
			p.Add(eb)
		}
		entries = append(entries, LegendEntry{Name: s.Name, Thumbs: []plot.Thumbnailer{l, sc}})
	}
	if points < MinPoints {
		return nil, nil
	}
	var ticks []plot.Tick
	for _, x := range xticks {
		ticks = append(ticks, plot.Tick{Value: x, Label: label(x)})
	}
	if len(ticks) > 0 {
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
		p.X.Min, p.X.Max = xticks[0]-0.2, xticks[len(xticks)-1]+0.2
	}
	p.Y.Min = 0
	p.Y.Max = math.Max(ymax*1.1, 1)
	svg, err := Render(p, Width, Height, entries)
	if err != nil {
		return nil, err
	}
	return &Chart{Title: title, SVG: svg}, nil
}

// titleChars is about how many characters of a 12 pt title fit a chart's
// width; a longer title is wrapped at spaces rather than clipped at both
// ends.
const titleChars = 95

// leftMargin is the room kept left of the plot, pt.
const leftMargin = 10

// wrap breaks s into lines of at most n characters at spaces.
func wrap(s string, n int) string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && len([]rune(line))+1+len([]rune(w)) > n {
			lines = append(lines, line)
			line = w
			continue
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}
