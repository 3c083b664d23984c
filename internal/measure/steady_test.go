package measure

import (
	"testing"
	"time"

	"rumbench/internal/steady"
)

// replay runs a clock over one insert count per 1 s interval, with the
// steady-state rule spec, and returns it stopped.
func replay(t *testing.T, spec string, counts []int64) (*Clock, []bool) {
	t.Helper()
	sp, err := steady.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	var warm []bool
	c := NewClock(time.Second, testOps, func(iv *Interval) { warm = append(warm, iv.Warmup) })
	c.SetSteady(steady.NewTracker(sp), func(iv *Interval) float64 { return iv.Rate(opInsert) })
	r := c.Recorder()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c.StartAt(t0)
	select {
	case <-c.Measuring():
		t.Fatal("measuring before the rule was judged")
	default:
	}
	for i, n := range counts {
		r.Record(opInsert, int(n), time.Millisecond, false)
		c.Tick(t0.Add(time.Duration(i+1) * time.Second))
	}
	c.StopAt(t0.Add(time.Duration(len(counts)) * time.Second))
	return c, warm
}

// A rate that ramps and then holds: the warm-up ends at the tick whose
// window of 3 s is within 5%, and only the intervals after it count.
func TestClockSteadyState(t *testing.T) {
	counts := []int64{100, 400, 800, 1000, 1010, 990, 1000, 1005, 995, 1000}
	c, warm := replay(t, "rate:dev=5%,window=3s,max=1m", counts)
	// Window 1000,1010,990 (intervals 4-6) holds at t=6 s.
	want := []bool{true, true, true, true, true, true, false, false, false, false}
	for i := range want {
		if warm[i] != want[i] {
			t.Fatalf("warm-up flags %v, want %v", warm, want)
		}
	}
	r := c.Steady()
	if r == nil || !r.Reached || r.AtS != 6 || r.Window.N != 3 || r.Window.Mean != 1000 {
		t.Fatalf("steady result %+v", r)
	}
	if got := c.Seconds(); got != 4 {
		t.Errorf("measured %v s, want 4", got)
	}
	if tot := c.Total(opInsert); tot == nil || tot.Rows != 1000+1005+995+1000 {
		t.Errorf("measured rows %+v, want only the last four intervals'", tot)
	}
	if got := c.MeasuredStart(); !got.Equal(time.Date(2026, 1, 1, 0, 0, 6, 0, time.UTC)) {
		t.Errorf("measured from %v", got)
	}
	if d := c.Deadline(10 * time.Second); !d.Time().Equal(c.MeasuredStart().Add(10 * time.Second)) {
		t.Errorf("deadline %v after the warm-up", d.Time())
	}
}

// A rate that never settles: the warm-up ends at the rule's limit, the
// step is measured from there, and the record says the rule was not met.
func TestClockSteadyStateNotReached(t *testing.T) {
	counts := []int64{1000, 300, 1000, 300, 1000, 300, 1000, 300}
	c, warm := replay(t, "rate:dev=5%,window=2s,max=4s", counts)
	r := c.Steady()
	if r.Reached || r.Window.N != 2 {
		t.Fatalf("steady result %+v", r)
	}
	if n := len(warm); n != 8 || !warm[3] || warm[4] {
		t.Fatalf("warm-up flags %v: want the first 4 s warm-up", warm)
	}
	if got := c.Seconds(); got != 4 {
		t.Errorf("measured %v s, want 4", got)
	}
}

// A deadline asked for during the warm-up is the latest possible end until
// the rule holds, then moves to MeasuredStart + length.
func TestDeadlineMovesWhenSteady(t *testing.T) {
	sp, _ := steady.Parse("rate:dev=50%,window=2s,max=30s")
	c := NewClock(time.Second, testOps)
	c.SetSteady(steady.NewTracker(sp), func(iv *Interval) float64 { return iv.Rate(opInsert) })
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c.StartAt(t0)
	d := c.Deadline(5 * time.Second)
	if want := t0.Add(5*time.Second + 30*time.Second + time.Second); !d.Time().Equal(want) {
		t.Fatalf("deadline before steady %v, want %v", d.Time(), want)
	}
	s := NewScheduleUntil(t0, d, 1, 1, 1)
	if s.Len() != 36 {
		t.Fatalf("schedule of %d slots before steady, want 36", s.Len())
	}
	r := c.Recorder()
	for i := 1; i <= 2; i++ {
		r.Record(opInsert, 5, time.Millisecond, false)
		c.Tick(t0.Add(time.Duration(i) * time.Second))
	}
	<-c.Measuring()
	want := t0.Add(7 * time.Second)
	for i := 0; !d.Time().Equal(want); i++ { // set by a goroutine
		if i == 5000 {
			t.Fatalf("deadline %v after steady, want %v", d.Time(), want)
		}
		time.Sleep(time.Millisecond)
	}
	s.Next(t0)
	if s.Len() != 7 {
		t.Fatalf("schedule of %d slots after steady at 2 s, want 7", s.Len())
	}
	if !d.Passed(want) || d.Passed(want.Add(-time.Nanosecond)) {
		t.Fatal("Passed")
	}
}
