package results

import (
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"rumbench/internal/measure"
)

var summaryOps = measure.Ops{
	{Name: "insert", Unit: measure.UnitRows, Role: measure.RoleWrite, Short: "i"},
	{Name: "insert_response", Unit: measure.UnitRows, Role: measure.RoleNone, ResponseOf: "insert"},
	{Name: "query", Unit: measure.UnitOps, Role: measure.RoleRead, Short: "q"},
	{Name: "build", Unit: measure.UnitOps, Role: measure.RoleNone},
}

// counts are one operation's totals in one interval: operations, rows,
// failed operations.
type counts struct{ ops, rows, errs int64 }

// hist is a histogram of n latencies of us µs each.
func hist(n int64, us int64) *hdr.Histogram {
	h := measure.NewHistogram()
	h.RecordValues(us, n)
	return h
}

// clockOf replays 1-second intervals through a manually ticked clock, as
// merge does, logging each interval as the runner does.
func clockOf(t *testing.T, series []map[string]counts) (*measure.Clock, []IntervalRecord) {
	t.Helper()
	var log []IntervalRecord
	c := measure.NewClock(time.Second, summaryOps, func(iv *measure.Interval) {
		log = append(log, *EncodeInterval("s", iv))
	})
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c.StartAt(t0)
	rec := c.Recorder()
	for i, iv := range series {
		for name, n := range iv {
			rec.Add(summaryOps.Must(name), n.ops, n.rows, n.errs, hist(n.ops, 1000*int64(i+1)))
		}
		c.Tick(t0.Add(time.Duration(i+1) * time.Second))
	}
	c.StopAt(t0.Add(time.Duration(len(series)) * time.Second))
	return c, log
}

var summarySeries = []map[string]counts{
	{"insert": {10, 100, 0}, "insert_response": {10, 100, 0}, "query": {12, 0, 2}},
	{"insert": {30, 300, 0}, "insert_response": {30, 300, 0}, "query": {30, 0, 0}, "build": {1, 0, 0}},
	{"insert": {60, 600, 0}, "insert_response": {60, 600, 0}, "query": {20, 0, 0}},
}

func f(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// Summarize on known intervals: totals, average rates to 0.1, the rate 99%
// of intervals met, no rate of a response twin's own, no percentile for an
// operation without a role, and the insert benchmark's fields.
func TestSummarizeKnownIntervals(t *testing.T) {
	c, _ := clockOf(t, summarySeries)
	sum := Summarize("s", StepDesc{MainOp: "insert"}, c, 99)
	if sum.Seconds != 3 || sum.Interval != 1 || sum.RatePercentile != 99 || sum.Errors != 2 {
		t.Errorf("seconds %g, interval %g, pct %g, errors %d; want 3, 1, 99, 2", sum.Seconds, sum.Interval, sum.RatePercentile, sum.Errors)
	}
	for _, c := range []struct {
		op                 string
		count, rows, errs  int64
		avg, pct, rate99   any
		latCount, p50, max int64
	}{
		// 1000 rows / 3 s; the slowest of 3 intervals (100 rows/s).
		{"insert", 100, 1000, 0, 333.3, 100.0, 100.0, 100, 3001, 3001},
		{"insert_response", 100, 1000, 0, nil, nil, nil, 100, 3001, 3001},
		// 60 successful queries / 3 s; the slowest interval did 10.
		{"query", 62, 0, 2, 20.0, 10.0, 10.0, 62, 2000, 3001},
		{"build", 1, 0, 0, 0.3, nil, nil, 1, 2000, 2001},
	} {
		o := sum.Ops[c.op]
		if o == nil {
			t.Errorf("%s: no summary", c.op)
			continue
		}
		if o.Count != c.count || o.Rows != c.rows || o.Errors != c.errs {
			t.Errorf("%s: count %d rows %d errors %d, want %d %d %d", c.op, o.Count, o.Rows, o.Errors, c.count, c.rows, c.errs)
		}
		if f(o.RateAvg) != c.avg || f(o.RatePct) != c.pct || f(o.Rate99) != c.rate99 {
			t.Errorf("%s: rate avg %v pct %v 99 %v, want %v %v %v", c.op, f(o.RateAvg), f(o.RatePct), f(o.Rate99), c.avg, c.pct, c.rate99)
		}
		if o.Latency.Count != c.latCount || o.Latency.P50 != c.p50 || o.Latency.Max/1000 != c.max/1000 || sum.Latency[c.op] != o.Latency {
			t.Errorf("%s: latency %+v, want count %d p50 %d max ~%d", c.op, o.Latency, c.latCount, c.p50, c.max)
		}
	}
	if sum.Inserted != 1000 || sum.IPSAvg != 333.3 || sum.IPS99 != 100 || sum.Queries != 60 || sum.QPSAvg != 20 || sum.QPS99 != 10 {
		t.Errorf("legacy fields: inserted %d ips %g/%g queries %d qps %g/%g", sum.Inserted, sum.IPSAvg, sum.IPS99, sum.Queries, sum.QPSAvg, sum.QPS99)
	}
	if len(sum.Stalls) != 2 || sum.Stalls["insert"] == nil || sum.Stalls["query"] == nil {
		t.Errorf("stalls judged for %v, want insert and query", sum.Stalls)
	}
	// Another percentile: the same windows, no *_99 fields.
	sum = Summarize("s", StepDesc{MainOp: "insert"}, c, 50)
	if o := sum.Ops["insert"]; f(o.RatePct) != 300.0 || o.Rate99 != nil || sum.IPS99 != 0 {
		t.Errorf("p50: rate_pct %v rate_99 %v ips_99 %g, want 300, nil, 0", f(o.RatePct), f(o.Rate99), sum.IPS99)
	}
}

// The main operation of a time-bounded step that never ran stalled for the
// whole window; it has stalls but no operation summary.
func TestSummarizeTimedStepMainOpNeverRan(t *testing.T) {
	c, _ := clockOf(t, []map[string]counts{{"insert": {1, 10, 0}}, {"insert": {1, 10, 0}}})
	sum := Summarize("s", StepDesc{MainOp: "query", TimeBoundedS: 2}, c, 99)
	if sum.Ops["query"] != nil {
		t.Errorf("query has a summary: %+v", sum.Ops["query"])
	}
	if st := sum.Stalls["query"]; st == nil || st.Count != 1 || st.Seconds != 2 {
		t.Errorf("query stalls %+v, want one of 2 s", st)
	}
}

func TestPromoteDetails(t *testing.T) {
	s := &Step{Details: map[string]any{"rows_per_query": int64(9)}}
	s.PromoteDetails()
	if s.RowsPerQuery == nil || *s.RowsPerQuery != 9 {
		t.Fatalf("promoted rows/query=%v", s.RowsPerQuery)
	}
	w := &Step{Details: map[string]any{"rows_per_commit": 50}}
	w.PromoteDetails()
	if w.IPSTarget != nil || w.TargetMet != nil || w.RowsPerQuery != nil {
		t.Fatal("a write step gained rate-limit fields")
	}
}
