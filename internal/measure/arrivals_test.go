package measure

import (
	"math"
	"testing"
	"time"
)

// TestPoissonArrivals: a Poisson schedule of 1,000 ops/s over 20 s has its
// slots before the end only, about 20,000 of them (a Poisson count: within
// 5σ of 20,000), gaps whose coefficient of variation is ~1 (an
// exponential's; a fixed schedule's is 0), the same timetable for the same
// seed, and keeps only the slots a caller may still ask for.
func TestPoissonArrivals(t *testing.T) {
	t0 := time.Unix(1000, 0)
	end := t0.Add(20 * time.Second)
	mk := func(seed uint64) *Schedule {
		return NewSchedule(t0, end, 1, 1000, 4).WithArrivals(PoissonArrivals, seed)
	}
	s := mk(7)
	var times []time.Time
	for {
		// A worker that is never late: it asks at each slot's start.
		now := t0
		if len(times) > 0 {
			now = times[len(times)-1]
		}
		_, at, skipped, ok := s.Next(now)
		if skipped != 0 {
			t.Fatalf("a punctual worker skipped %d slots", skipped)
		}
		if !ok {
			break
		}
		if !at.Before(end) || (len(times) > 0 && at.Before(times[len(times)-1])) {
			t.Fatalf("slot %d at %v: after the end %v or before the previous", len(times), at, end)
		}
		times = append(times, at)
		if kept := len(s.poisson.times); kept > 64 {
			t.Fatalf("%d arrivals kept after slot %d: memory grows", kept, len(times))
		}
	}
	n := float64(len(times))
	if math.Abs(n-20000) > 5*math.Sqrt(20000) || s.Len() != int64(len(times)) {
		t.Fatalf("%v slots (Len %d), want ~20,000", n, s.Len())
	}
	var sum, sq float64
	for i := 1; i < len(times); i++ {
		g := float64(times[i].Sub(times[i-1]))
		sum += g
		sq += g * g
	}
	mean := sum / (n - 1)
	cv := math.Sqrt(sq/(n-1)-mean*mean) / mean
	if math.Abs(mean-1e6) > 0.05e6 || math.Abs(cv-1) > 0.05 {
		t.Errorf("gaps: mean %.0f ns, cv %.3f; want 1e6 ns and 1", mean, cv)
	}
	again := mk(7)
	for i := 0; i < 100; i++ {
		_, at, _, _ := again.Next(t0)
		if !at.Equal(times[i]) {
			t.Fatalf("seed 7 again: slot %d at %v, first time %v", i, at, times[i])
		}
	}
	if _, at, _, _ := mk(8).Next(t0); at.Equal(times[0]) {
		t.Errorf("seed 8 gives seed 7's first arrival")
	}
}

// TestPoissonBacklog: a worker that stalls sees the slots due meanwhile
// handled by the backlog rule (the newest 4 run, the rest are missed and
// returned for their response times), as on a fixed schedule.
func TestPoissonBacklog(t *testing.T) {
	t0 := time.Unix(1000, 0)
	s := NewSchedule(t0, t0.Add(10*time.Second), 1, 1000, 4).WithArrivals(PoissonArrivals, 1)
	if _, _, _, ok := s.Next(t0); !ok {
		t.Fatal("no first slot")
	}
	late := t0.Add(200 * time.Millisecond) // a 200 ms stall: ~200 due
	slot, at, skipped, ok := s.Next(late)
	if !ok || skipped < 150 || skipped > 250 || slot != 1+skipped || at.After(late) {
		t.Fatalf("after a 200 ms stall: slot %d at %v, skipped %d, ok %v", slot, at.Sub(t0), skipped, ok)
	}
	for i := slot - skipped; i < slot; i++ {
		if s.At(i).After(late) {
			t.Fatalf("skipped slot %d is not due", i)
		}
	}
	if s.Missed() != skipped {
		t.Errorf("missed %d, skipped %d", s.Missed(), skipped)
	}
	due := 0
	for i := slot + 1; !s.At(i).After(late); i++ {
		due++
	}
	if due != 3 {
		t.Errorf("%d more slots due after the one handed out, want 3 (backlog 4)", due)
	}
}

func TestParseArrivals(t *testing.T) {
	for in, want := range map[string]Arrivals{"": FixedArrivals, "fixed": FixedArrivals, "poisson": PoissonArrivals} {
		if got, err := ParseArrivals(in); err != nil || got != want {
			t.Errorf("%q: %v %v", in, got, err)
		}
	}
	if _, err := ParseArrivals("uniform"); err == nil {
		t.Error("uniform accepted")
	}
}
