package runner

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"rumbench/internal/measure"
	"rumbench/internal/report"
	"rumbench/internal/results"
	"rumbench/internal/units"
)

var agreeOps = measure.Ops{
	{Name: "insert", Unit: measure.UnitRows, Role: measure.RoleWrite, Short: "i", RateLabel: "IPS"},
	{Name: "delete", Unit: measure.UnitRows, Role: measure.RoleWrite, Short: "d"},
	{Name: "query", Unit: measure.UnitOps, Role: measure.RoleRead, Short: "q", RateLabel: "QPS"},
}

// replay runs a step's interval series (per interval: done per operation,
// each interval 1 s) through a manually ticked clock, the live printer and
// the interval encoder, as runStep does, and summarizes it.
func replay(t *testing.T, desc results.StepDesc, series []map[string]int) (*results.Step, []results.IntervalRecord, []string) {
	t.Helper()
	var recs []results.IntervalRecord
	var out bytes.Buffer
	live := newLivePrinter(&out, "eng", "s", agreeOps, desc, time.Second)
	clock := measure.NewClock(time.Second, agreeOps, func(iv *measure.Interval) {
		rec := results.EncodeInterval("s", iv)
		recs = append(recs, *rec)
		live.observe(iv)
		live.print(iv, rec)
	})
	rec := clock.Recorder()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock.StartAt(t0)
	for i, iv := range series {
		for name, n := range iv {
			op := agreeOps.Must(name)
			if agreeOps[op].Unit == measure.UnitOps {
				for k := 0; k < n; k++ {
					rec.Record(op, 10, time.Millisecond, false)
				}
			} else if n > 0 {
				rec.Record(op, n, time.Millisecond, false)
			}
		}
		clock.Tick(t0.Add(time.Duration(i+1) * time.Second))
	}
	clock.StopAt(t0.Add(time.Duration(len(series)) * time.Second))
	sum := results.Summarize("s", desc, clock, DefaultRatePercentile)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	return sum, recs, lines
}

// liveMarked reports whether the live line flagged op as stalled.
func liveMarked(line, op string) bool {
	_, m, ok := strings.Cut(line, "STALL")
	if !ok {
		return false
	}
	m, _, _ = strings.Cut(m, "[")
	for _, f := range strings.Fields(m) {
		if f == op {
			return true
		}
	}
	return false
}

// TestOneStallRule: the live line, the step summary, the report table and
// the chart markers judge the same interval series alike (item 4 of the
// workload-generic core): a count-bounded step judged by its inserts and a
// time-bounded step judged by its queries, with a writer that stops inside
// the window and a deleter catching up after it.
func TestOneStallRule(t *testing.T) {
	cases := []struct {
		name   string
		desc   results.StepDesc
		series []map[string]int
		// op: the stalled intervals every view must show.
		want map[string][]int
		// liveAt: where the live line flags op, when it differs from
		// want (a grouped operation: on the last interval of a window).
		liveAt map[string][]int
	}{
		{
			name: "count-bounded, finished tail",
			desc: results.StepDesc{MainOp: "insert"},
			series: []map[string]int{
				{"insert": 1000, "delete": 1000}, {"insert": 1000, "delete": 1000}, {"insert": 1000, "delete": 1000},
				{"insert": 100, "delete": 100}, {"insert": 1000, "delete": 1000}, {"insert": 1000, "delete": 1000},
				{"insert": 1000, "delete": 1000}, {"delete": 800}, {},
			},
			want: map[string][]int{"insert": {3}, "delete": {3}},
		},
		{
			name: "time-bounded, writer stops, catch-up after the window",
			desc: results.StepDesc{MainOp: "query", TimeBoundedS: 6},
			series: []map[string]int{
				{"insert": 100, "delete": 100, "query": 500}, {"insert": 100, "delete": 100, "query": 500},
				{"insert": 100, "delete": 100, "query": 500}, {"insert": 100, "delete": 100, "query": 500},
				{"query": 100, "delete": 100}, {"query": 500, "delete": 100},
				{"delete": 300},
			},
			want: map[string][]int{"query": {4}, "insert": {4, 5}},
		},
		{
			// A paced writer commits one batch every 2 s: on 1 s
			// intervals every other interval has no insert, which is its
			// pace. Judged over windows of 6 intervals (three periods),
			// only the window that lost two of its three batches
			// (intervals 12-17) stalls; the live line flags it when it
			// closes.
			name: "time-bounded, paced writer judged over its period",
			desc: results.StepDesc{MainOp: "query", TimeBoundedS: 18, OpPeriodS: map[string]float64{"insert": 2}},
			series: func() []map[string]int {
				var s []map[string]int
				for i := range 18 {
					iv := map[string]int{"query": 500}
					if i%2 == 0 && i != 14 && i != 16 {
						iv["insert"] = 100
					}
					s = append(s, iv)
				}
				return s
			}(),
			want:   map[string][]int{"insert": {12, 13, 14, 15, 16, 17}},
			liveAt: map[string][]int{"insert": {17}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sum, recs, lines := replay(t, c.desc, c.series)
			if len(lines) != len(c.series) {
				t.Fatalf("%d live lines for %d intervals:\n%s", len(lines), len(c.series), strings.Join(lines, "\n"))
			}
			bundle := &report.Bundle{
				Bundle: &results.Bundle{
					Dir:       "replay",
					Run:       results.Run{SchemaVersion: results.SchemaVersion, Workload: "replay", Ops: agreeOps, Steps: []string{"s"}},
					Steps:     map[string]*results.Step{"s": sum},
					Intervals: recs,
				},
				Raw: map[string]map[string]any{"s": {}},
			}
			rep, err := report.Build([]*report.Bundle{bundle}, report.Options{})
			if err != nil {
				t.Fatal(err)
			}
			tables := rep.StepTables(rep.Steps[0])
			cells := tables[0].Rows[0]
			tableCell := cells[len(cells)-1]
			for op, want := range c.want {
				spec := agreeOps[agreeOps.Must(op)]
				chart := report.IntervalStallMarks(recs, sum, spec)
				var chartAt, liveAt []int
				for i := range c.series {
					if chart[i] {
						chartAt = append(chartAt, i)
					}
					if liveMarked(lines[i], op) {
						liveAt = append(liveAt, i)
					}
				}
				if !slices.Equal(chartAt, want) {
					t.Errorf("%s: chart marks %v, want %v", op, chartAt, want)
				}
				wantLive := want
				if l, ok := c.liveAt[op]; ok {
					wantLive = l
				}
				if !slices.Equal(liveAt, wantLive) {
					t.Errorf("%s: live marks %v, want %v\n%s", op, liveAt, wantLive, strings.Join(lines, "\n"))
				}
				st := sum.Stalls[op]
				secs := make([]float64, len(chart))
				for i := range secs {
					secs[i] = 1
				}
				if fromChart := measure.SummarizeMarks(chart, secs); st == nil || *st != fromChart {
					t.Errorf("%s: summary stalls %+v, chart marks sum to %+v", op, st, fromChart)
				}
				if op == c.desc.MainOp {
					wantCell := "0"
					if st.Count > 0 {
						wantCell = strconv.Itoa(st.Count) + "," + units.Num(st.Seconds)
					}
					if tableCell != wantCell {
						t.Errorf("table stalls cell %q, want %q (summary %+v)", tableCell, wantCell, st)
					}
				}
			}
		})
	}
}

// --rate-percentile: the summary reports the rate the given share of
// intervals met, and the report labels its columns with it.
func TestRatePercentile(t *testing.T) {
	series := make([]map[string]int, 20)
	for i := range series {
		series[i] = map[string]int{"insert": 100}
	}
	series[7] = map[string]int{"insert": 10}
	desc := results.StepDesc{MainOp: "insert"}
	var recs []results.IntervalRecord
	clock := measure.NewClock(time.Second, agreeOps, func(iv *measure.Interval) { recs = append(recs, *results.EncodeInterval("s", iv)) })
	rec := clock.Recorder()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock.StartAt(t0)
	for i, iv := range series {
		rec.Record(agreeOps.Must("insert"), iv["insert"], time.Millisecond, false)
		clock.Tick(t0.Add(time.Duration(i+1) * time.Second))
	}
	clock.StopAt(t0.Add(20 * time.Second))
	for _, c := range []struct {
		pct  float64
		want float64
	}{{99, 10}, {95, 100}} {
		sum := results.Summarize("s", desc, clock, c.pct)
		if got := *sum.Ops["insert"].RatePct; got != c.want || sum.RatePercentile != c.pct {
			t.Errorf("percentile %g: rate_pct %g, want %g", c.pct, got, c.want)
		}
		if (sum.Ops["insert"].Rate99 != nil) != (c.pct == 99) {
			t.Errorf("percentile %g: ops.insert.rate_99 = %v; want it only at 99", c.pct, sum.Ops["insert"].Rate99)
		}
		if (sum.IPS99 != 0) != (c.pct == 99) {
			t.Errorf("percentile %g: ips_99 = %g; want it only at 99", c.pct, sum.IPS99)
		}
		b := &report.Bundle{Bundle: &results.Bundle{Run: results.Run{Ops: agreeOps, Steps: []string{"s"}},
			Steps: map[string]*results.Step{"s": sum}, Intervals: recs}, Raw: map[string]map[string]any{"s": {}}}
		rep, err := report.Build([]*report.Bundle{b}, report.Options{})
		if err != nil {
			t.Fatal(err)
		}
		head := strings.Join(rep.StepTables(rep.Steps[0])[0].Headers, " ")
		if want := "IPS." + strconv.FormatFloat(c.pct, 'f', -1, 64) + "(rows/s)"; !strings.Contains(head, want) {
			t.Errorf("headers %q lack %q", head, want)
		}
	}
}
