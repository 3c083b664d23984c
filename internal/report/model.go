package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"rumbench/internal/results"
)

// Kind is how a step is reported.
type Kind string

// Step kinds: query steps (qr*, qp*) get the read-write columns.
const (
	KindWrite Kind = "write"
	KindQuery Kind = "query"
)

// stepKind classifies a step by its name, as the insert benchmark does.
func stepKind(step string) Kind {
	if strings.HasPrefix(step, "qr") || strings.HasPrefix(step, "qp") {
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

// Value is a number that may be unavailable; unavailable values are printed
// as n/a and encoded as null, never as 0.
type Value struct {
	V  float64
	OK bool
}

func some(v float64) Value {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return Value{}
	}
	return Value{V: v, OK: true}
}

// ratio is v relative to base; unavailable when either is, or base is 0.
func ratio(v, base Value) Value {
	if !v.OK || !base.OK || base.V == 0 {
		return Value{}
	}
	return some(v.V / base.V)
}

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
	Num    int
	Label  string
	Bundle *Bundle
	// Sizes are the workload sizes that must match for runs to compare.
	Sizes map[string]string
	// SizeDiffs lists the sizes that differ from the base run.
	SizeDiffs []string
}

// Row is one run's line in a step table.
type Row struct {
	Run    *Run
	Status string
	Error  string
	// Values and Ratios are indexed like Keys.
	Values map[string]Value
	Ratios map[string]Value
	Stalls map[string]*Stall
	// IPSTarget and TargetMet are set in rate-limited (query) steps.
	IPSTarget Value
	TargetMet *bool
	// MainOp is the operation whose latency max(ms) shows.
	MainOp string
}

// StepReport is the table of one step.
type StepReport struct {
	Name string
	Kind Kind
	Rows []*Row
}

// Report is everything the renderers print.
type Report struct {
	Runs  []*Run
	Base  int // index into Runs
	Steps []*StepReport
	// Notes are printed before the tables (engine notes, size warnings).
	Notes []string
}

// Options configure a report.
type Options struct {
	// Base is the 1-based number of the base run; 0 means the first.
	Base int
}

// Build assembles the report of bundles.
func Build(bundles []*Bundle, o Options) (*Report, error) {
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
		r.Runs = append(r.Runs, &Run{Num: i + 1, Bundle: b, Sizes: workloadSizes(&b.Run)})
	}
	labelRuns(r.Runs)
	r.checkSizes()
	for _, name := range stepOrder(bundles) {
		r.Steps = append(r.Steps, r.buildStep(name))
	}
	return r, nil
}

// checkSizes flags runs whose workload sizes differ from the base run's.
func (r *Report) checkSizes() {
	for _, run := range r.Runs {
		e := run.Bundle.Run.Engine
		if e.Note != "" {
			r.Notes = append(r.Notes, fmt.Sprintf("‡ #%d %s: %s", run.Num, e.Name, e.Note))
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
				run.SizeDiffs = append(run.SizeDiffs, fmt.Sprintf("%s %s (base %s)", k, orDash(v), orDash(bv)))
			}
		}
		if len(run.SizeDiffs) > 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("WARNING: #%d %s ran a different workload size than the base #%d: %s; its ratios compare different work",
				run.Num, run.Label, base.Num, strings.Join(run.SizeDiffs, ", ")))
		}
	}
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
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

// sizeKeys are the config.ibench fields that set how much work a run does.
var sizeKeys = []string{"clients", "rows", "churn_rows", "indexes", "pad_min", "pad_max"}

func workloadSizes(run *results.Run) map[string]string {
	out := map[string]string{"workload": run.Workload}
	cfg, _ := toMap(run.Config)
	ib, _ := cfg["ibench"].(map[string]any)
	for _, k := range sizeKeys {
		if v, ok := ib[k]; ok {
			out[k] = scalarString(v)
		}
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
	sr := &StepReport{Name: name, Kind: stepKind(name)}
	for _, run := range r.Runs {
		sr.Rows = append(sr.Rows, buildRow(run, name, sr.Kind))
	}
	base := sr.Rows[r.Base]
	for _, row := range sr.Rows {
		row.Ratios = map[string]Value{}
		for k, v := range row.Values {
			row.Ratios[k] = ratio(v, base.Values[k])
		}
	}
	return sr
}

func buildRow(run *Run, name string, kind Kind) *Row {
	row := &Row{Run: run, Values: map[string]Value{}, Stalls: map[string]*Stall{}}
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
	row.MainOp = mainOp(s)
	if kind == KindQuery && hasOp(s, "query") {
		row.MainOp = "query"
	}
	for _, k := range valueKeys {
		row.Values[k.Key] = k.get(s, raw, row.MainOp)
	}
	row.IPSTarget = num(raw, "ips_target")
	if b, ok := raw["target_met"].(bool); ok {
		row.TargetMet = &b
	}
	ivs := stepIntervals(run.Bundle.Intervals, name)
	for _, op := range []string{"insert", "query"} {
		if st := stepStall(raw, op); st != nil {
			row.Stalls[op] = st
		} else if st := intervalStall(ivs, op); st != nil {
			row.Stalls[op] = st
		}
	}
	return row
}

func hasOp(s *results.Step, op string) bool {
	l, ok := s.Latency[op]
	return ok && l.Count > 0
}

// valueKey is one number of a row, named as in CSV and JSON.
type valueKey struct {
	Key  string
	get  func(s *results.Step, raw map[string]any, mainOp string) Value
	desc string
}

// valueKeys are every number a row carries, in CSV column order.
var valueKeys = []valueKey{
	{"ips_avg", func(s *results.Step, raw map[string]any, _ string) Value {
		if !inserts(s) {
			return Value{}
		}
		return some(s.IPSAvg)
	}, "rows inserted / step seconds"},
	{"ips_99", func(s *results.Step, raw map[string]any, _ string) Value {
		if !inserts(s) {
			return Value{}
		}
		return some(s.IPS99)
	}, "insert rate met or exceeded by 99% of intervals, rows/s"},
	{"dps_avg", func(s *results.Step, raw map[string]any, _ string) Value {
		if s.Deleted == 0 && !hasOp(s, "delete") {
			return Value{}
		}
		return some(s.DPSAvg)
	}, "rows deleted / step seconds"},
	{"qps_avg", func(s *results.Step, raw map[string]any, _ string) Value {
		if !queries(s, raw) {
			return Value{}
		}
		if v := num(raw, "qps_avg"); v.OK {
			return v
		}
		return some(s.QPSAvg)
	}, "queries / step seconds"},
	{"qps_99", func(s *results.Step, raw map[string]any, _ string) Value {
		if !queries(s, raw) {
			return Value{}
		}
		if v := num(raw, "qps_99"); v.OK {
			return v
		}
		return some(s.QPS99)
	}, "query rate met or exceeded by 99% of intervals, queries/s"},
	{"indexed_rows_per_s", func(s *results.Step, raw map[string]any, _ string) Value {
		if v, ok := s.Details["indexed_rows_per_s"].(float64); ok {
			return some(v)
		}
		return Value{}
	}, "l.x: rows indexed / step seconds"},
	{"rows_per_query", metricTop("rows_per_query"), "rows returned per query"},
	{"cpu_us_per_insert", metric("cpu_us_per_insert"), "CPU µs (user+sys) of the measured processes per inserted row"},
	{"cpu_us_per_query", metric("cpu_us_per_query"), "CPU µs (user+sys) of the measured processes per query"},
	{"wkb_per_insert", metric("wkb_per_insert"), "KB written to storage per inserted row"},
	{"rkb_per_insert", metric("rkb_per_insert"), "KB read from storage per inserted row"},
	{"reads_per_insert", metric("reads_per_insert"), "storage reads per inserted row"},
	{"rkb_per_query", metric("rkb_per_query"), "KB read from storage per query"},
	{"size_gb", scaled("size_bytes", 1e-9), "database size at step end, GB (10^9 bytes)"},
	{"pss_gb", scaled("pss_bytes", 1e-9), "memory (PSS) of the measured processes at step end, GB (10^9 bytes)"},
	{"write_amp", metric("write_amp"), "bytes written to storage / logical bytes inserted"},
	{"space_amp", metric("space_amp"), "size / logical live bytes"},
	{"p99_ms", func(s *results.Step, _ map[string]any, op string) Value {
		if !hasOp(s, op) {
			return Value{}
		}
		return some(float64(s.Latency[op].P99) / 1000)
	}, "99th percentile latency of the step's main operation, ms"},
	{"max_ms", func(s *results.Step, _ map[string]any, op string) Value {
		if !hasOp(s, op) {
			return Value{}
		}
		return some(float64(s.Latency[op].Max) / 1000)
	}, "largest latency of the step's main operation, ms"},
}

// inserts reports whether the step inserted (or tried to insert) rows, so a
// step without inserts shows n/a rather than a rate of 0.
func inserts(s *results.Step) bool { return s.Inserted > 0 || hasOp(s, "insert") }

func queries(s *results.Step, raw map[string]any) bool {
	if q := num(raw, "queries"); q.OK && q.V > 0 {
		return true
	}
	return s.Queries > 0 || hasOp(s, "query")
}

func metric(key string) func(*results.Step, map[string]any, string) Value {
	return func(_ *results.Step, raw map[string]any, _ string) Value {
		m, _ := raw["metrics"].(map[string]any)
		return num(m, key)
	}
}

func metricTop(key string) func(*results.Step, map[string]any, string) Value {
	return func(_ *results.Step, raw map[string]any, _ string) Value { return num(raw, key) }
}

func scaled(key string, f float64) func(*results.Step, map[string]any, string) Value {
	return func(_ *results.Step, raw map[string]any, _ string) Value {
		m, _ := raw["metrics"].(map[string]any)
		v := num(m, key)
		if !v.OK {
			return v
		}
		return some(v.V * f)
	}
}

// num reads a JSON number; null, absent or non-numeric values are unavailable.
func num(m map[string]any, key string) Value {
	switch v := m[key].(type) {
	case float64:
		return some(v)
	case map[string]any:
		// A metric may be reported with its reason: {"value": x, ...}.
		return num(v, "value")
	}
	return Value{}
}

// stepStall reads stalls.<op> from a step summary, when present.
func stepStall(raw map[string]any, op string) *Stall {
	st, _ := raw["stalls"].(map[string]any)
	m, ok := st[op].(map[string]any)
	if !ok {
		return nil
	}
	c := num(m, "count")
	if !c.OK {
		return nil
	}
	return &Stall{Count: int(c.V), Seconds: num(m, "seconds").V, LongestS: num(m, "longest_s").V, Source: "step"}
}

// Throughput is a run's headline rate of a step: IPS for write steps
// (indexed rows/s for l.x), QPS for query steps.
func (row *Row) Throughput(kind Kind) (Value, string) {
	if kind == KindQuery {
		return row.Values["qps_avg"], "q/s"
	}
	if v := row.Values["ips_avg"]; v.OK {
		return v, "rows/s"
	}
	if v := row.Values["indexed_rows_per_s"]; v.OK {
		return v, "rows/s"
	}
	return Value{}, "rows/s"
}
