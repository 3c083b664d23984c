package runner

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"rumbench/internal/measure"
	"rumbench/internal/results"
)

// An index build (its main operation has no rate) at 100 ms intervals: 12 s
// with one table's index done at 3.6 s. Old code printed 120 lines of "(no
// operations completed)"; now one line per 5 s of quiet and the line of the
// completed index.
func TestLiveIndexBuildQuietLines(t *testing.T) {
	ops := measure.Ops{
		{Name: "insert", Unit: measure.UnitRows, Role: measure.RoleWrite, Short: "i"},
		{Name: "index", Unit: measure.UnitRows, Role: measure.RoleNone, Short: "x"},
	}
	var out bytes.Buffer
	const step = 100 * time.Millisecond
	live := newLivePrinter(&out, "eng", "l.x", ops, results.StepDesc{MainOp: "index"}, step)
	clock := measure.NewClock(step, ops, func(iv *measure.Interval) {
		rec := results.EncodeInterval("l.x", iv)
		live.observe(iv)
		live.print(iv, rec)
	})
	rec := clock.Recorder()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock.StartAt(t0)
	const n = 120
	for i := 0; i < n; i++ {
		if i == 35 {
			rec.Record(ops.Must("index"), 1_000_000, 3*time.Second, false)
		}
		clock.Tick(t0.Add(time.Duration(i+1) * step))
	}
	clock.StopAt(t0.Add(n * step))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) > 4 {
		t.Fatalf("%d live lines for a 12 s index build with one index done, want at most 4 (one per 5 s of quiet and the index's):\n%s", len(lines), out.String())
	}
	var sawIndex, sawQuiet bool
	for _, l := range lines {
		sawIndex = sawIndex || strings.Contains(l, "index ")
		if strings.Contains(l, "no operation completed for") {
			sawQuiet = true
			if !strings.Contains(l, "5.0s") && !strings.Contains(l, "4.9s") && !strings.Contains(l, "5.1s") {
				t.Errorf("quiet line does not say how long it has been quiet (5 s): %q", l)
			}
		}
	}
	if !sawIndex || !sawQuiet {
		t.Errorf("want the completed index's line and a quiet line:\n%s", out.String())
	}
}

// Steps judged by a rate still print every interval, quiet or not: an
// interval without inserts in a load is news.
func TestLiveJudgedStepPrintsQuietIntervals(t *testing.T) {
	_, _, lines := replay(t, results.StepDesc{MainOp: "insert"}, []map[string]int{
		{"insert": 100}, {"insert": 0}, {"insert": 0}, {"insert": 100},
	})
	if len(lines) != 4 {
		t.Fatalf("%d lines, want one per interval:\n%s", len(lines), strings.Join(lines, "\n"))
	}
}

// TestLiveLinesAgreeWithTheSummary (issue 48 item 6): an index build done in
// one lump shows its rate so far (rows over the step's time, as the
// summary), not that interval's burst; a maintenance action is counted; an operation that stops completing
// for an interval keeps its column at 0 instead of leaving the line.
func TestLiveLinesAgreeWithTheSummary(t *testing.T) {
	ops := measure.Ops{
		{Name: "insert", Unit: measure.UnitRows, Role: measure.RoleWrite, Short: "i"},
		{Name: "delete", Unit: measure.UnitRows, Role: measure.RoleWrite, Short: "d"},
		{Name: "query", Unit: measure.UnitOps, Role: measure.RoleRead, Short: "q"},
		{Name: "index", Unit: measure.UnitRows, Role: measure.RoleNone, Short: "x"},
		{Name: "maintain", Unit: measure.UnitOps, Role: measure.RoleNone, Short: "op"},
	}
	run := func(step, main string, record func(i int, rec *measure.Recorder)) []string {
		var out bytes.Buffer
		const iv = 200 * time.Millisecond
		desc := results.StepDesc{MainOp: main}
		if step == "qr100" {
			desc.OpPeriodS = map[string]float64{"insert": 0.25, "delete": 0.25}
		}
		live := newLivePrinter(&out, "eng", step, ops, desc, iv)
		clock := measure.NewClock(iv, ops, func(v *measure.Interval) {
			rec := results.EncodeInterval(step, v)
			live.observe(v)
			live.print(v, rec)
		})
		rec := clock.Recorder()
		t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		clock.StartAt(t0)
		for i := 0; i < 10; i++ {
			record(i, rec)
			clock.Tick(t0.Add(time.Duration(i+1) * iv))
		}
		clock.StopAt(t0.Add(10 * iv))
		return strings.Split(strings.TrimSpace(out.String()), "\n")
	}
	// 2,000,000 rows indexed at 1.0 s of a 2 s step: 1M rows/s so far at
	// 1 s, where the interval's own rate would be 10M rows/s.
	lines := run("l.x", "index", func(i int, rec *measure.Recorder) {
		if i == 4 {
			rec.Record(ops.Must("index"), 2_000_000, time.Second, false)
		}
	})
	var saw bool
	for _, l := range lines {
		if strings.Contains(l, "index") {
			saw = true
			if !strings.Contains(l, "2000000 rows/s so far") {
				t.Errorf("index line %q: want the rate so far", l)
			}
			if strings.Contains(l, "10000000") {
				t.Errorf("index line %q shows the interval's burst", l)
			}
		}
	}
	if !saw {
		t.Fatalf("no index line:\n%s", strings.Join(lines, "\n"))
	}
	// One maintenance action, a length in the summary: the line counts
	// it (the rate of 1 action over 0.2 s, 5 /s, was printed before).
	lines = run("maint", "maintain", func(i int, rec *measure.Recorder) {
		if i == 0 {
			rec.Record(ops.Must("maintain"), 1, 150*time.Millisecond, false)
		}
	})
	if !strings.Contains(lines[0], "maintain 1 done") || strings.Contains(lines[0], "/s") {
		t.Errorf("maint line %q: want the action counted, no rate", lines[0])
	}
	// Queries every interval, the paced deletes in every other one from
	// the second: the declared paced columns are there from the first
	// line and stay.
	lines = run("qr100", "query", func(i int, rec *measure.Recorder) {
		rec.Record(ops.Must("query"), 10, time.Millisecond, false)
		rec.Record(ops.Must("insert"), 50, time.Millisecond, false)
		if i%2 == 1 {
			rec.Record(ops.Must("delete"), 50, time.Millisecond, false)
		}
	})
	for _, l := range lines {
		if !strings.Contains(l, "delete") || !strings.Contains(l, "insert") {
			t.Errorf("a column went missing: %q", l)
		}
	}
}
