package report

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"rumbench/internal/figure"
	"rumbench/internal/measure"
	"rumbench/internal/results"
	"rumbench/internal/stats"
	"rumbench/internal/units"
)

// Kind is how a step is reported.
type Kind string

// Step kinds, from the step's recorded description: a time-bounded step
// judged by a read operation is a query step (read-write columns: its
// writers' rate beside its reads); every other step is a write step.
const (
	KindWrite Kind = "write"
	KindQuery Kind = "query"
)

// stepKind classifies a step of one run by its description and operations.
func stepKind(s *results.Step, ops measure.Ops) Kind {
	if figure.QueryStep(s, ops) {
		return KindQuery
	}
	return KindWrite
}

// Status of a step in one run.
const (
	StatusOK         = "ok"
	StatusIncomplete = "incomplete"
	StatusNotRun     = "not run"
)

// Value is a number that may be unavailable (figure.Value): printed as n/a
// and encoded as null, never as 0.
type Value = figure.Value

// Stall summarizes the stalled intervals of one operation in one step.
type Stall struct {
	Count    int     `json:"count"`
	Seconds  float64 `json:"seconds"`
	LongestS float64 `json:"longest_s"`
	// Source is "step" when the step summary carried it, "intervals" when
	// the report computed it from the interval log.
	Source string `json:"source"`
}

// Run is one bundle in the report.
type Run struct {
	// Num is the run's 1-based number: what --base takes.
	Num   int
	Label string
	// Short names the run in charts, narrow tables and the verdict: its
	// Label, or its variant's label alone when the Label (with the
	// settings that tell it apart) is too long for them; the runs table
	// gives the whole Label beside the run's number.
	Short  string
	Bundle *Bundle
	// Reps are the run's repetitions (--repeat), in the order they ran;
	// Bundle is the first. Empty for a single run.
	Reps []*Bundle
	// Sizes are the workload sizes that must match for runs to compare.
	Sizes map[string]string
	// SizeDiffs lists the sizes that differ from the base run.
	SizeDiffs []string
}

// Row is one run's line in a step table.
type Row struct {
	Run *Run
	// B is the bundle the row's step data come from: the run's, or for a
	// repeated run the repetition whose headline rate is the median.
	B *Bundle
	// Reps are the repetitions that completed the step (repeated runs).
	Reps []*Bundle
	// Stats summarise each value over Reps (repeated runs only); Values
	// then hold their medians.
	Stats map[string]*stats.Stat
	// Cmp tests each value against the base row's over their
	// repetitions (both repeated).
	Cmp    map[string]*stats.Comparison
	Status string
	Error  string
	// Values and Ratios are indexed like Keys.
	Values map[string]Value
	Ratios map[string]Value
	Stalls map[string]*Stall
	// Targets are the step's verdicts on its paced operations' rate
	// targets (the insert benchmark's writers' SLA, ...; none for a step
	// that paced nothing).
	Targets figure.Targets
	// MainOp is the operation whose latency p99/max show; RateOp the one
	// whose rate, per-operation figures and stalls the table shows (the
	// main operation, except in version 1 bundles: see results.Step);
	// WriteOp the writers' operation beside a query step's reads.
	MainOp, RateOp, WriteOp string
}

// StepReport is the table of one step.
type StepReport struct {
	Name string
	Kind Kind
	Rows []*Row
	// Rate, Main and Write are the operations the columns are labelled
	// by, from the first run that ran the step (Write is empty when a
	// query step had no writer).
	Rate, Main, Write measure.OpSpec
	// Percentile is the rate percentile of the rate_pct columns (the first
	// run's; runs that differ are flagged in the notes).
	Percentile float64
	// Ran is false when no run ran the step (planned, but every run ended
	// before it): it has no operations to head its columns.
	Ran bool
	// Search: the step searched for its sustained rate (l.max, LinkBench
	// --request-rate max); its headline rate is that rate, not done /
	// seconds.
	Search bool
}

// Report is everything the renderers print.
type Report struct {
	Runs  []*Run
	Base  int // index into Runs
	Steps []*StepReport
	// Warnings qualify every figure (a busy host): printed beside the title.
	Warnings []string
	// Notes are printed before the tables (engine notes, size warnings).
	Notes []string
	// Caveats are printed under the tables: settings that decide what is
	// measured and differ between the runs compared.
	Caveats []string
	// NotStarted are the engines a run listed (--engine) that left no
	// bundle: the run ended before they started.
	NotStarted []NotStarted
	// Lead and LeadTables open the HTML page, before the runs and the
	// per-step sections (a sweep's summary charts and matrices).
	Lead       []Chart
	LeadTables []Table
}

// Options configure a report.
type Options struct {
	// Base is the 1-based number of the base run; 0 means the first.
	Base int
}

// Build assembles the report of bundles.
func Build(bundles []*Bundle, o Options) (*Report, error) {
	groups := make([][]*Bundle, len(bundles))
	for i, b := range bundles {
		groups[i] = []*Bundle{b}
	}
	return BuildGroups(groups, o)
}

// BuildGroups assembles the report of runs each made of one or more
// repetitions of one configuration: a group of several is reported by the
// medians of its figures.
func BuildGroups(groups [][]*Bundle, o Options) (*Report, error) {
	var bundles []*Bundle
	for _, g := range groups {
		if len(g) == 0 {
			return nil, fmt.Errorf("a run without repetitions")
		}
		bundles = append(bundles, g[0])
	}
	if len(bundles) == 0 {
		return nil, fmt.Errorf("no run bundle to report")
	}
	base := o.Base
	if base == 0 {
		base = 1
	}
	if base < 1 || base > len(bundles) {
		return nil, fmt.Errorf("--base %d is out of range: there are %d runs, numbered 1..%d", o.Base, len(bundles), len(bundles))
	}
	r := &Report{Base: base - 1}
	for i, b := range bundles {
		run := &Run{Num: i + 1, Bundle: b, Sizes: workloadSizes(&b.Run)}
		if len(groups[i]) > 1 {
			run.Reps = groups[i]
		}
		r.Runs = append(r.Runs, run)
	}
	labelRuns(r.Runs)
	r.checkSizes()
	r.checkNotStarted()
	r.checkSettings()
	r.checkMemory()
	r.checkDisk()
	for _, name := range stepOrder(bundles) {
		r.Steps = append(r.Steps, r.buildStep(name))
	}
	r.checkNoise()
	return r, nil
}

// NotStarted is an engine a run was asked for but never started.
type NotStarted struct {
	Engine string
	// Out is the run's --out directory, where its bundle would be.
	Out string
}

// checkNotStarted finds the engines each run listed (its config's
// "engines") that have no bundle beside the run's: a run interrupted before
// it reached them. An engine whose bundle exists but was not named on the
// command line is not one.
func (r *Report) checkNotStarted() {
	seen := map[string]bool{}
	for _, run := range r.Runs {
		out := filepath.Dir(run.Bundle.Dir)
		if seen[out] || filepath.Base(run.Bundle.Dir) != run.Bundle.Run.VariantLabel() {
			// Only a run's --out (<out>/<label>/ each) says where
			// another variant's bundle would be.
			continue
		}
		seen[out] = true
		cfg, _ := toMap(run.Bundle.Run.Config)
		list, _ := cfg["engines"].([]any)
		for _, e := range list {
			entry, _ := e.(string)
			// LABEL=ENGINE for a labelled variant: its bundle is
			// <out>/<label>.
			name, _, _ := strings.Cut(entry, "=")
			if name == "" {
				continue
			}
			if _, err := os.Stat(filepath.Join(out, name, results.RunFile)); err == nil {
				continue
			}
			r.NotStarted = append(r.NotStarted, NotStarted{Engine: name, Out: out})
			r.Notes = append(r.Notes, fmt.Sprintf("NOT RUN: engine %s of the run in %s never started (no bundle): the run ended before it; it is listed as not run in the summary.", name, out))
		}
	}
}

// checkSizes flags runs whose workload sizes differ from the base run's.
func (r *Report) checkSizes() {
	for _, run := range r.Runs {
		e := run.Bundle.Run.Engine
		if e.Note != "" {
			r.Notes = append(r.Notes, fmt.Sprintf("‡ #%d %s: %s", run.Num, e.Name, e.Note))
		}
		if m := run.Bundle.Run.MergedFrom; m != nil {
			var hosts []string
			for _, s := range m.Shards {
				hosts = append(hosts, fmt.Sprintf("%d on %s", s.Index, s.Host))
			}
			r.Notes = append(r.Notes, fmt.Sprintf("#%d %s: merged from %d shards of one run (rumbench merge; shard %s)", run.Num, e.Name, m.Count, strings.Join(hosts, ", ")))
		}
	}
	base := r.Runs[r.Base]
	var keys []string
	for k := range base.Sizes {
		keys = append(keys, k)
	}
	for _, run := range r.Runs {
		for k := range run.Sizes {
			if _, ok := base.Sizes[k]; !ok {
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys)
	keys = dedupe(keys)
	for _, run := range r.Runs {
		if run == base {
			continue
		}
		for _, k := range keys {
			v, bv := run.Sizes[k], base.Sizes[k]
			if v != bv {
				run.SizeDiffs = append(run.SizeDiffs, fmt.Sprintf("%s %s (base %s)", k, units.OrDash(v), units.OrDash(bv)))
			}
		}
		if len(run.SizeDiffs) > 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("WARNING: #%d %s ran a different workload size than the base #%d: %s; its ratios compare different work",
				run.Num, run.Label, base.Num, strings.Join(run.SizeDiffs, ", ")))
		}
	}
}

func dedupe(sorted []string) []string {
	var out []string
	for i, s := range sorted {
		if i == 0 || s != sorted[i-1] {
			out = append(out, s)
		}
	}
	return out
}

// workloadSizes are the run's workload sizes as text (run.json sizes).
func workloadSizes(run *results.Run) map[string]string {
	out := map[string]string{"workload": run.Workload}
	for k, v := range run.Sizes {
		out[k] = scalarString(v)
	}
	return out
}

// stepOrder merges the steps of all runs, keeping each run's order.
func stepOrder(bundles []*Bundle) []string {
	var order []string
	pos := map[string]int{}
	for _, b := range bundles {
		names := append(append([]string(nil), b.Run.Steps...), b.StepNames()...)
		at := 0 // insert after the last known step of this run
		for _, n := range names {
			if p, ok := pos[n]; ok {
				at = p + 1
				continue
			}
			order = append(order, "")
			copy(order[at+1:], order[at:])
			order[at] = n
			for i, s := range order {
				pos[s] = i
			}
			at++
		}
	}
	return order
}

func (r *Report) buildStep(name string) *StepReport {
	sr := &StepReport{Name: name, Kind: KindWrite}
	labelled := false
	for _, run := range r.Runs {
		row := buildRow(run, name)
		sr.Rows = append(sr.Rows, row)
		if s := run.Bundle.Steps[name]; s != nil && !labelled {
			labelled, sr.Ran = true, true
			ops := run.Bundle.Run.Ops
			sr.Kind = stepKind(s, ops)
			sr.Percentile = s.RatePercentile
			_, sr.Search = s.Details["search"]
			sr.Rate, sr.Main = specOf(ops, row.RateOp), specOf(ops, row.MainOp)
			if row.WriteOp != "" {
				sr.Write = specOf(ops, row.WriteOp)
			}
		}
	}
	for _, row := range sr.Rows {
		if row.Status == StatusNotRun {
			continue
		}
		src := row.source(name)
		for i := range figure.Catalogue {
			f := &figure.Catalogue[i]
			row.Values[f.Key] = f.Of(src)
		}
		if len(row.Run.Reps) > 0 {
			row.repStats(name)
		}
	}
	base := sr.Rows[r.Base]
	for _, row := range sr.Rows {
		row.Ratios = map[string]Value{}
		for k, v := range row.Values {
			row.Ratios[k] = figure.Ratio(v, base.Values[k])
		}
		if row.Stats != nil && base.Stats != nil {
			row.Cmp = map[string]*stats.Comparison{}
			for k, st := range row.Stats {
				if c := stats.Compare(base.Stats[k], st); c != nil {
					row.Cmp[k] = c
				}
			}
		}
	}
	return sr
}

// specOf returns the spec of op, or a bare one named op when the run did
// not declare it.
func specOf(ops measure.Ops, op string) measure.OpSpec {
	if i, ok := ops.Lookup(op); ok {
		return ops[i]
	}
	return measure.OpSpec{Name: op, Unit: measure.UnitRows}
}

func buildRow(run *Run, name string) *Row {
	row := &Row{Run: run, B: run.Bundle, Values: map[string]Value{}, Stalls: map[string]*Stall{}}
	s, ok := run.Bundle.Steps[name]
	if !ok {
		row.Status = StatusNotRun
		return row
	}
	row.Status = StatusOK
	if !s.Complete {
		row.Status = StatusIncomplete
	}
	row.Error = s.Error
	raw := run.Bundle.Raw[name]
	ops := run.Bundle.Run.Ops
	src := figure.SourceOf(s, ops, raw)
	row.MainOp, row.RateOp, row.WriteOp = src.MainOp, src.RateOp, src.WriteOp
	row.Targets = figure.TargetsOf(s)
	for op, st := range s.Stalls {
		if st != nil {
			row.Stalls[op] = &Stall{Count: st.Count, Seconds: st.Seconds, LongestS: st.LongestS, Source: "step"}
		}
	}
	if len(s.Stalls) == 0 {
		// Bundles whose summaries carry no stalls: computed from the
		// interval log under the same rule.
		// As Summarize does: every judged operation that ran, and a
		// time-bounded step's main operation even if it never ran.
		ivs := stepIntervals(run.Bundle.Intervals, name)
		timed := stallRule(s, s.MainOp).Timed
		for _, spec := range ops {
			ran := s.Ops[spec.Name] != nil
			for _, iv := range ivs {
				ran = ran || iv.Ops[spec.Name].Ops > 0
			}
			if !spec.Judged() || !(ran || (timed && spec.Name == s.MainOp)) {
				continue
			}
			if st := intervalStall(ivs, spec, s); st != nil {
				row.Stalls[spec.Name] = st
			}
		}
	}
	return row
}

// source is what the row's figures of step name are read from: its
// bundle's step and the row's operations.
func (row *Row) source(name string) figure.Source {
	return figure.Source{Step: row.B.Steps[name], RateOp: row.RateOp, MainOp: row.MainOp, WriteOp: row.WriteOp, Raw: row.B.Raw[name]}
}

// Throughput is a run's headline rate of a step and its unit.
func (row *Row) Throughput(sr *StepReport) (Value, string) {
	return row.Values[figure.RateAvg], unitLabel(sr.Rate)
}

// checkMemory adds a caveat for every run whose engine did not run with the
// run's cache budget (an unmanaged server, an override, no cache of its
// own), and one when the runs' caches differ.
func (r *Report) checkMemory() {
	sizes := map[int64]bool{}
	var parts []string
	for _, run := range r.Runs {
		m := run.Bundle.Run.Engine.Memory
		if m == nil {
			continue
		}
		if m.Caveat != "" {
			r.Caveats = append(r.Caveats, fmt.Sprintf("CAVEAT: #%d %s: %s.", run.Num, run.Label, m.Caveat))
		}
		if m.CacheBytes >= 0 {
			sizes[m.CacheBytes] = true
			parts = append(parts, fmt.Sprintf("#%d %s %s", run.Num, run.Label, units.Bytes(m.CacheBytes)))
		}
	}
	if len(sizes) > 1 {
		r.Caveats = append(r.Caveats, fmt.Sprintf("CAVEAT: the engines' caches differ (%s): a comparison between them is partly one of memory budgets.", strings.Join(parts, ", ")))
	}
}

// checkSettings adds a caveat for every normalised setting (flush on
// commit, binlog, torn page protection) whose value differs between runs.
func (r *Report) checkSettings() {
	keys := map[string]bool{}
	for _, run := range r.Runs {
		for k := range run.Bundle.Run.MeasuredSettings {
			keys[k] = true
		}
	}
	var sorted []string
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		vals := map[string]bool{}
		var parts []string
		for _, run := range r.Runs {
			v, ok := run.Bundle.Run.MeasuredSettings[k]
			if !ok {
				v = "n/a"
			}
			vals[v] = true
			parts = append(parts, fmt.Sprintf("#%d %s %s", run.Num, run.Label, v))
		}
		if len(vals) > 1 {
			r.Caveats = append(r.Caveats, fmt.Sprintf("CAVEAT: %s differs between the runs (%s): they do not do the same durable work, so their write figures are not like for like.", k, strings.Join(parts, ", ")))
		}
	}
}

// StepFigures are the headline figures of step name of bundle b, as the
// report's step table computes them (every catalogued figure that b's step
// has a value for), in CSV column order; none when b did not run the step.
// The results history stores these per step.
func StepFigures(b *Bundle, name string) []figure.Measured {
	s := b.Steps[name]
	if s == nil {
		return nil
	}
	return figure.All(figure.SourceOf(s, b.Run.Ops, b.Raw[name]))
}
