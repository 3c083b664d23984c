package results

import (
	"reflect"
	"testing"
	"time"
)

// A step rumbench never finished is rebuilt from its logged intervals by
// the rules of a finished step: on the same intervals (whole rates, which
// the log keeps exactly) the replay's figures are the summary's; warm-up
// intervals and other steps' are left out; stalls need the step's end.
func TestUnfinishedReplayMatchesSummary(t *testing.T) {
	c, log := clockOf(t, summarySeries)
	desc := StepDesc{MainOp: "insert"}
	want := Summarize("s", desc, c, 99)

	dir := t.TempDir()
	w, err := Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.WriteRun(&Run{SchemaVersion: SchemaVersion, Ops: summaryOps, Steps: []string{"s", "t"}}); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteStep(Placeholder("s", desc, 99, 1, want.Started)); err != nil {
		t.Fatal(err)
	}
	warm := log[0]
	warm.Warmup, warm.Index = true, -1
	other := log[1]
	other.Step = "t"
	for _, rec := range append([]IntervalRecord{warm}, append(log, other)...) {
		if err := w.AppendInterval(&rec); err != nil {
			t.Fatal(err)
		}
	}
	b, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := b.Steps["s"]
	if !got.Unfinished || got.Error != UnfinishedError || got.Complete {
		t.Errorf("replayed step: unfinished %v complete %v error %q, want unfinished with UnfinishedError", got.Unfinished, got.Complete, got.Error)
	}
	if got.Seconds != want.Seconds || got.Errors != want.Errors || got.Details["intervals_logged"] != 3 {
		t.Errorf("seconds %g errors %d intervals %v, want %g %d 3", got.Seconds, got.Errors, got.Details["intervals_logged"], want.Seconds, want.Errors)
	}
	if !reflect.DeepEqual(got.Ops, want.Ops) {
		for name, o := range want.Ops {
			t.Errorf("%s: replayed %+v, want %+v", name, *got.Ops[name], *o)
		}
	}
	if !reflect.DeepEqual(got.Latency, want.Latency) {
		t.Errorf("latency %+v, want %+v", got.Latency, want.Latency)
	}
	if got.Inserted != want.Inserted || got.IPSAvg != want.IPSAvg || got.IPS99 != want.IPS99 || got.QPSAvg != want.QPSAvg || got.QPS99 != want.QPS99 {
		t.Errorf("legacy fields %d %g %g %g %g, want %d %g %g %g %g", got.Inserted, got.IPSAvg, got.IPS99, got.QPSAvg, got.QPS99, want.Inserted, want.IPSAvg, want.IPS99, want.QPSAvg, want.QPS99)
	}
	if got.Stalls != nil {
		t.Errorf("replayed stalls %v, want none", got.Stalls)
	}
}

// An interval the operation did not appear in ran it at rate 0, in its
// place: the rate 99% of intervals met is then 0, also when the missing
// intervals come last in a time-bounded step (a count-bounded one is not
// judged on its trailing idle intervals).
func TestUnfinishedReplayCountsMissingIntervalsAsZero(t *testing.T) {
	rec := func(i int, ops map[string]OpRecord) IntervalRecord {
		return IntervalRecord{Step: "s", Index: i, Seconds: 1, Ops: ops}
	}
	q := func(n int64) map[string]OpRecord { return map[string]OpRecord{"query": {Ops: n, Rate: float64(n)}} }
	for _, c := range []struct {
		name      string
		timedS    float64
		intervals []IntervalRecord
		avg, p50  float64
	}{
		{"gap", 0, []IntervalRecord{rec(0, q(10)), rec(1, nil), rec(2, q(20))}, 10, 10},
		{"tail", 3, []IntervalRecord{rec(0, q(30)), rec(1, nil), rec(2, nil)}, 10, 0},
	} {
		for _, pct := range []float64{99, 50} {
			b := &Bundle{Run: Run{Ops: summaryOps}, Intervals: c.intervals}
			s := Placeholder("s", StepDesc{MainOp: "query", TimeBoundedS: c.timedS}, pct, 1, time.Time{})
			b.fillUnfinished(s)
			o := s.Ops["query"]
			want := 0.0
			if pct == 50 {
				want = c.p50
			}
			if o == nil || f(o.RateAvg) != c.avg || f(o.RatePct) != want {
				t.Errorf("%s, p%g: %+v, want rate avg %g, rate_pct %g", c.name, pct, o, c.avg, want)
			}
		}
	}
}
