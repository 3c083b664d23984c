package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"rumbench/internal/results"
)

// htmlSection is one step's part of the page.
type htmlSection struct {
	ID     string
	Name   string
	Tables []Table
	Charts []htmlChart
}

type htmlChart struct {
	Title string
	SVG   template.HTML
}

type htmlPage struct {
	Title      string
	Warnings   []string
	TOC        []htmlLink
	Lead       []htmlChart
	LeadTables []Table
	Generated  string
	Runs       Table
	Notes      []string
	Steps      []htmlSection
	Summary    []Table
	Stalls     Table
	Legend     []string
}

type htmlLink struct{ ID, Text string }

// tocCharts is how many charts make a page long enough for a table of
// contents.
const tocCharts = 6

// HTML writes the report as one self-contained page: tables and inline SVG
// charts, no scripts, styles or fonts fetched from anywhere. It returns the
// number of charts drawn. The page leads with what qualifies every figure
// (a busy host, beside the title), then each step's headline rate and its
// cost per operation relative to the base run, then the absolute tables,
// the runs and each step's section.
func (r *Report) HTML(w io.Writer) (int, error) {
	page := htmlPage{
		Title: r.Title(), Warnings: r.Warnings, Generated: time.Now().UTC().Format(time.RFC3339),
		Runs: r.RunsTable(), Notes: r.Notes,
		Stalls: r.StallsTable(), Legend: Legend, LeadTables: r.LeadTables,
	}
	if len(r.Runs) > 1 && len(r.Lead) == 0 {
		// A sweep leads with its own matrices instead.
		page.Summary = append(page.Summary, r.RelativeTable(), r.EfficiencyTable())
	}
	page.Summary = append(page.Summary, r.ThroughputTable())
	if t, ok := r.WhyTable(); ok {
		// Beside the efficiency chart: the engine's own counters that
		// explain its costs per operation.
		page.Summary = append(page.Summary, t)
	}
	lead := r.Lead
	if len(lead) == 0 {
		// A run report's summary charts; a sweep brings its own.
		for _, draw := range []func() (*Chart, error){r.relativeChart, r.efficiencyChart} {
			c, err := draw()
			if err != nil {
				return 0, err
			}
			if c != nil {
				lead = append(lead, *c)
			}
		}
	}
	for _, c := range lead {
		page.Lead = append(page.Lead, htmlChart{Title: c.Title, SVG: template.HTML(c.SVG)})
	}
	charts := len(lead)
	for i, sr := range r.Steps {
		sec := htmlSection{ID: fmt.Sprintf("step-%d", i), Name: sr.Name, Tables: r.StepTables(sr)}
		cs, err := r.stepCharts(sr)
		if err != nil {
			return 0, err
		}
		pc, err := r.probesChart(sr)
		if err != nil {
			return 0, err
		}
		if pc != nil {
			cs = append(cs, *pc)
		}
		fl, notes := r.flameCharts(sr)
		cs = append(cs, fl...)
		for _, c := range cs {
			sec.Charts = append(sec.Charts, htmlChart{Title: c.Title, SVG: template.HTML(c.SVG)})
		}
		if len(notes) > 0 && len(sec.Tables) > 0 {
			sec.Tables[0].Notes = append(sec.Tables[0].Notes, notes...)
		}
		charts += len(cs)
		page.Steps = append(page.Steps, sec)
	}
	if charts >= tocCharts {
		page.TOC = append(page.TOC, htmlLink{"summary", "Summary"}, htmlLink{"runs", "Runs"})
		for _, sec := range page.Steps {
			page.TOC = append(page.TOC, htmlLink{sec.ID, fmt.Sprintf("%s (%d charts)", sec.Name, len(sec.Charts))})
		}
		page.TOC = append(page.TOC, htmlLink{"legend", "Legend"})
	}
	if err := pageTemplate.Execute(w, page); err != nil {
		return 0, fmt.Errorf("write html report: %w", err)
	}
	return charts, nil
}

// CheckHTMLPath checks, before anything is rendered, that an HTML report can
// be written to path: its directory exists and is writable, and path is not a
// directory. It leaves nothing behind.
func CheckHTMLPath(path string) error {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("--html %s is a directory: give a file name such as report.html", path)
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("--html %s: directory %s does not exist (create it or choose another path)", path, dir)
	}
	if !st.IsDir() {
		return fmt.Errorf("--html %s: %s is not a directory", path, dir)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".check*")
	if err != nil {
		return fmt.Errorf("--html %s: directory %s is not writable: %v", path, dir, errors.Unwrap(err))
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// WriteHTMLFile writes the HTML report to path atomically.
func (r *Report) WriteHTMLFile(path string) (int, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return 0, fmt.Errorf("write %s: %w", path, err)
	}
	n, werr := r.HTML(tmp)
	// CreateTemp makes the file private; a report is meant to be shared.
	if werr == nil {
		werr = tmp.Chmod(0o644)
	}
	if cerr := tmp.Close(); werr == nil && cerr != nil {
		werr = fmt.Errorf("write %s: %w", path, cerr)
	}
	if werr == nil {
		if err := os.Rename(tmp.Name(), path); err != nil {
			werr = fmt.Errorf("write %s: %w", path, err)
		}
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return 0, werr
	}
	return n, nil
}

var pageTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"right": func(t Table, i int) bool { return i < len(t.Right) && t.Right[i] },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font-family: "Liberation Sans", Arial, Helvetica, sans-serif; margin: 1.5em auto; max-width: 1100px; padding: 0 1em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; } h3 { font-size: 1em; }
table { border-collapse: collapse; margin: 0.5em 0 1em; font-size: 0.85em; }
th, td { border: 1px solid #ddd; padding: 3px 7px; white-space: nowrap; }
th { background: #f3f3f3; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr:nth-child(even) td { background: #fafafa; }
.note { margin: 0.2em 0; font-size: 0.85em; } .warn { color: #a33; }
.warnbox { color: #a33; border: 1px solid #e0b4b4; background: #fff6f6; padding: 0.4em 0.7em; font-size: 0.9em; }
.toc { font-size: 0.85em; margin: 0.5em 0 1em; line-height: 1.6; }
.charts { display: flex; flex-direction: column; gap: 1em; }
figure { margin: 0; } svg.chart { max-width: 100%; height: auto; }
.scroll { overflow-x: auto; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{range .Warnings}}<p class="warnbox">{{.}}</p>
{{end}}<p class="note">Generated {{.Generated}} by rumbench report.</p>
{{if .TOC}}<nav class="toc"><b>Contents:</b> {{range $i, $l := .TOC}}{{if $i}} · {{end}}<a href="#{{$l.ID}}">{{$l.Text}}</a>{{end}}</nav>
{{end}}{{define "table"}}<h3>{{.Title}}</h3>
{{if .Rows}}<div class="scroll"><table>
<thead><tr>{{range .Headers}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{$t := .}}{{range .Rows}}<tr>{{range $i, $c := .}}<td{{if right $t $i}} class="num"{{end}}>{{$c}}</td>{{end}}</tr>
{{end}}</tbody>
</table></div>{{end}}
{{range .Notes}}<p class="note">{{.}}</p>
{{end}}{{end}}
<section id="summary">
<h2>Summary</h2>
<div class="charts">
{{range .Lead}}<figure aria-label="{{.Title}}">{{.SVG}}</figure>
{{end}}</div>
{{range .LeadTables}}{{template "table" .}}{{end}}
{{range .Summary}}{{template "table" .}}{{end}}
{{template "table" .Stalls}}
</section>
<h2 id="runs">Runs</h2>
{{template "table" .Runs}}
{{range .Notes}}<p class="note warn">{{.}}</p>
{{end}}
{{range .Steps}}<section id="{{.ID}}">
<h2>{{.Name}}</h2>
{{range .Tables}}{{template "table" .}}{{end}}
<div class="charts">
{{range .Charts}}<figure aria-label="{{.Title}}">{{.SVG}}</figure>
{{else}}<p class="note">No interval chart for this step: it has fewer than 3 intervals with data (its table says it).</p>
{{end}}</div>
</section>
{{end}}
<h2 id="legend">Legend</h2>
<ul>{{range .Legend}}<li class="note">{{.}}</li>{{end}}</ul>
</body>
</html>
`))

// RunReport is what `rumbench run` prints at its end before the verdict:
// the markdown report of the engines it ran (with quiet, only its summary
// tables), and the HTML report written to htmlPath. It returns the report,
// whose verdict the caller prints last.
func RunReport(w io.Writer, bundles []*results.Bundle, htmlPath string, quiet bool) (*Report, error) {
	rep, err := BundlesReport(bundles)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(w)
	if err := rep.print(w, quiet); err != nil {
		return nil, err
	}
	n, err := rep.WriteHTMLFile(htmlPath)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "\nHTML report with %d charts: %s\n", n, htmlPath)
	return rep, nil
}

// BundlesReport is the report of bundles just run (the first is the base).
func BundlesReport(bundles []*results.Bundle) (*Report, error) {
	var bs []*Bundle
	for _, b := range bundles {
		wb, err := WrapBundle(b)
		if err != nil {
			return nil, err
		}
		bs = append(bs, wb)
	}
	return Build(bs, Options{})
}

// print writes the whole markdown report, or with quiet its summary.
func (r *Report) print(w io.Writer, quiet bool) error {
	if quiet {
		return r.Summary(w)
	}
	return r.Markdown(w)
}

// SummaryFile is a repeated run's summary over its repetitions, at the top
// of its --out (the JSON report).
const SummaryFile = "summary.json"

// RepeatReport is what `rumbench run --repeat` prints at its end before the
// verdict: the report of the repetitions under out (medians, intervals,
// tests against the first engine; with quiet its summary tables only), also
// written as out/summary.json and out/report.html. It returns the report,
// whose verdict the caller prints last.
func RepeatReport(w io.Writer, out string, quiet bool) (*Report, error) {
	groups, err := LoadGroups([]string{out})
	if err != nil {
		return nil, err
	}
	rep, err := BuildGroups(groups, Options{})
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(w)
	if err := rep.print(w, quiet); err != nil {
		return nil, err
	}
	var js strings.Builder
	if err := rep.JSON(&js); err != nil {
		return nil, err
	}
	if err := results.WriteJSONAtomic(filepath.Join(out, SummaryFile), json.RawMessage(js.String())); err != nil {
		return nil, err
	}
	n, err := rep.WriteHTMLFile(filepath.Join(out, "report.html"))
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(w, "\nsummary over %d repetitions: %s; HTML report with %d charts: %s\n",
		len(results.RepDirs(out)), filepath.Join(out, SummaryFile), n, filepath.Join(out, "report.html"))
	return rep, nil
}
