package sysmetrics

import (
	"errors"
	"slices"
	"testing"
	"time"

	"rumbench/internal/measure"
	"rumbench/internal/results"
)

// testSampler is a sampler whose counters are unavailable: only its stall
// judgement is exercised.
func testSampler(step string) *Sampler {
	s := &Sampler{log: NewOnceLog(nil), tr: newTracker(), rd: &reader{unavailable: errors.New("test")}}
	s.StepStart(step)
	return s
}

// ivl is an interval of secs seconds with the given rows/s of inserts,
// queries/s and rows/s of deletes.
func ivl(secs, ins, qry, del float64) *measure.Interval {
	iv := &measure.Interval{Seconds: secs}
	set := func(op measure.Op, rate float64) {
		if n := int64(rate * secs); n > 0 {
			iv.Ops[op] = &measure.OpInterval{Ops: n, Rows: n}
		}
	}
	set(measure.OpInsert, ins)
	set(measure.OpQuery, qry)
	set(measure.OpDelete, del)
	return iv
}

// feed passes the intervals to the sampler and returns each live marker.
func feed(s *Sampler, ivs ...*measure.Interval) []string {
	var marks []string
	for _, iv := range ivs {
		m, _ := s.Interval(iv)["marker"].(string)
		marks = append(marks, m)
	}
	return marks
}

// stepClock is a stopped 1 s clock whose step had the given operations, so
// its totals say which operations ran.
func stepClock(ops ...measure.Op) *measure.Clock {
	c := measure.NewClock(time.Second)
	r := c.Recorder()
	c.Start()
	for _, op := range ops {
		r.Record(op, 1, time.Millisecond, false)
	}
	c.Stop()
	return c
}

func stallCount(st *measure.Stalls) int {
	if st == nil {
		return -1
	}
	return st.Count
}

func checkStalls(t *testing.T, got *results.Stalls, ins, qry int) {
	t.Helper()
	if got == nil {
		t.Fatalf("stalls = nil, want insert %d query %d", ins, qry)
	}
	if stallCount(got.Insert) != ins || stallCount(got.Query) != qry {
		t.Errorf("stalls insert %+v query %+v, want counts %d, %d", got.Insert, got.Query, ins, qry)
	}
}

// l.i1: the inserter finishes, the deleter catches up for two intervals,
// then a 15 ms final interval. Neither the live line nor the summary
// reports a stall.
func TestStallsCountBoundedCatchUp(t *testing.T) {
	s := testSampler("l.i1")
	marks := feed(s,
		ivl(1, 1000, 0, 1000), ivl(1, 1000, 0, 1000), ivl(1, 1000, 0, 1000),
		ivl(1, 0, 0, 800), ivl(1, 0, 0, 800), ivl(0.015, 0, 0, 200))
	for i, m := range marks {
		if m != "" {
			t.Errorf("interval %d: live marker %q, want none", i, m)
		}
	}
	checkStalls(t, s.stalls(stepClock(measure.OpInsert, measure.OpDelete)), 0, -1)
}

// A mid-step slowdown in a count-bounded step is flagged live and in the
// summary alike.
func TestStallsCountBoundedSlowdown(t *testing.T) {
	s := testSampler("l.i1")
	marks := feed(s, ivl(1, 1000, 0, 1000), ivl(1, 1000, 0, 1000), ivl(1, 100, 0, 100), ivl(1, 1000, 0, 1000))
	if want := []string{"", "", "STALL ins", ""}; !slices.Equal(marks, want) {
		t.Errorf("live markers %q, want %q", marks, want)
	}
	checkStalls(t, s.stalls(stepClock(measure.OpInsert, measure.OpDelete)), 1, -1)
}

// qr100: the writer hangs for the last two intervals while queries go on.
// Live flags both; the summary counts one insert stall of 2 s. The short
// final interval is not flagged.
func TestStallsTimedWriterHangs(t *testing.T) {
	s := testSampler("qr100")
	marks := feed(s,
		ivl(1, 100, 500, 100), ivl(1, 100, 500, 100), ivl(1, 100, 500, 100),
		ivl(1, 0, 500, 0), ivl(1, 0, 500, 0), ivl(0.015, 0, 10, 0))
	if want := []string{"", "", "", "STALL ins", "STALL ins", ""}; !slices.Equal(marks, want) {
		t.Errorf("live markers %q, want %q", marks, want)
	}
	got := s.stalls(stepClock(measure.OpInsert, measure.OpQuery))
	checkStalls(t, got, 1, 0)
	if got.Insert.Seconds != 2 {
		t.Errorf("insert stall %+v, want 2 s", got.Insert)
	}
}

// qp1000: the writer never inserts anything; the clock has no insert totals
// at all, yet the summary reports an insert stall covering the step.
func TestStallsTimedWriterNeverRuns(t *testing.T) {
	s := testSampler("qp1000")
	feed(s, ivl(1, 0, 500, 0), ivl(1, 0, 500, 0), ivl(1, 0, 500, 0), ivl(0.015, 0, 10, 0))
	got := s.stalls(stepClock(measure.OpQuery))
	checkStalls(t, got, 1, 0)
	if got.Insert.Seconds != 3 || got.Insert.LongestS != 3 {
		t.Errorf("insert stall %+v, want one of 3 s", got.Insert)
	}
}

// qr500: after the timed window the deleter catches up (deletes only):
// neither a live marker nor a summary stall.
func TestStallsTimedCatchUpTail(t *testing.T) {
	s := testSampler("qr500")
	marks := feed(s, ivl(1, 500, 400, 500), ivl(1, 500, 400, 500), ivl(1, 500, 400, 500), ivl(1, 0, 0, 300))
	for i, m := range marks {
		if m != "" {
			t.Errorf("interval %d: live marker %q, want none", i, m)
		}
	}
	checkStalls(t, s.stalls(stepClock(measure.OpInsert, measure.OpQuery, measure.OpDelete)), 0, 0)
}
