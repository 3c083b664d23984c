package history

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"

	"rumbench/internal/report"
)

// WriteHTML writes a page with, per series, a chart over its runs of each
// figure (run number on the x axis, the level either side of each change
// point drawn as a second line) and the table of the runs' builds that the
// numbers stand for, change points marked. findings are Check's for ss.
func WriteHTML(w io.Writer, ss []*Series, figures []string, findings []*Finding) error {
	if len(figures) == 0 {
		figures = CheckFigures
	}
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>rumbench history</title>
<style>body{font-family:sans-serif;max-width:1100px;margin:auto}svg.chart{width:100%;height:auto}
table{border-collapse:collapse;font-size:13px}td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right}
td.l,th.l{text-align:left}.reg{color:#b00;font-weight:bold}.imp{color:#070}</style></head><body>
<h1>rumbench history</h1>
`)
	byPoint := map[*Point][]*Finding{}
	bySeries := map[*Series][]*Finding{}
	for _, f := range findings {
		byPoint[f.At] = append(byPoint[f.At], f)
		bySeries[f.Series] = append(bySeries[f.Series], f)
	}
	for si, s := range ss {
		fmt.Fprintf(&b, "<h2 id=\"s%d\">%s</h2>\n<p>%d runs</p>\n", si+1, html.EscapeString(s.Key.String()), len(s.Points))
		n := len(s.Points)
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64(i + 1)
		}
		var ticks []float64
		if n <= 40 {
			ticks = xs
		}
		for _, fig := range figures {
			ys := make([]float64, n)
			have := 0
			for i, p := range s.Points {
				ys[i] = math.NaN()
				if v, ok := p.Figures[fig]; ok {
					ys[i] = v
					have++
				}
			}
			if have == 0 {
				continue
			}
			lines := []report.Series{{Name: fig, X: xs, Y: ys}}
			if lv := levels(s, fig, bySeries[s]); lv != nil {
				lines = append(lines, report.Series{Name: "level between change points", X: xs, Y: lv})
			}
			ch, err := report.LineChart(fig+" by run", "run (see the table)", fig, ticks, lines)
			if err != nil {
				return err
			}
			if ch != nil {
				b.WriteString(ch.SVG)
				b.WriteString("\n")
			}
		}
		b.WriteString(`<table><tr><th>#</th><th class="l">started (UTC)</th><th class="l">rumbench</th><th class="l">engine</th><th class="l">change</th></tr>` + "\n")
		for i, p := range s.Points {
			var marks []string
			for _, f := range byPoint[p] {
				cls := "imp"
				if f.Regressed {
					cls = "reg"
				}
				what := strings.Join(f.Differs, "; ")
				if what == "" {
					what = "nothing recorded differs"
				}
				marks = append(marks, fmt.Sprintf(`<span class="%s">%s %s %+.1f%%</span> (%s)`, cls, f.Direction(), html.EscapeString(f.Figure), 100*f.Change.Rel(), html.EscapeString(what)))
			}
			fmt.Fprintf(&b, "<tr><td>%d</td><td class=\"l\">%s</td><td class=\"l\">%s %s</td><td class=\"l\">%s %s</td><td class=\"l\">%s</td></tr>\n", i+1,
				p.Run.StartedAt.UTC().Format("2006-01-02 15:04"), html.EscapeString(p.Run.ToolVersion), html.EscapeString(p.Run.ToolCommit),
				html.EscapeString(p.Run.Engine), html.EscapeString(p.Run.EngineVersion), strings.Join(marks, "<br>"))
		}
		b.WriteString("</table>\n")
	}
	b.WriteString("</body></html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// levels is, per run of s, the level of fig's segment between its change
// points (nil when fig has none): the step the detector saw.
func levels(s *Series, fig string, fs []*Finding) []float64 {
	var cuts []*Finding
	for _, f := range fs {
		if f.Figure == fig {
			cuts = append(cuts, f)
		}
	}
	if len(cuts) == 0 {
		return nil
	}
	out := make([]float64, len(s.Points))
	seg := 0
	for i, p := range s.Points {
		if seg < len(cuts) && p == cuts[seg].At {
			seg++
		}
		switch {
		case seg == 0:
			out[i] = cuts[0].Change.Before
		default:
			out[i] = cuts[seg-1].Change.After
		}
		if _, ok := p.Figures[fig]; !ok {
			out[i] = math.NaN()
		}
	}
	return out
}
