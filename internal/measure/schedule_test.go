package measure

import (
	"context"
	"testing"
	"time"
)

var t0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

func TestScheduleArithmetic(t *testing.T) {
	// 50 rows per transaction at 1000 rows/s: a slot every 50 ms.
	s := NewSchedule(t0, t0.Add(10*time.Second), 50, 1000, 4)
	if s.Period() != 50*time.Millisecond {
		t.Fatalf("period = %v, want 50ms", s.Period())
	}
	if s.Len() != 200 {
		t.Fatalf("len = %d, want 200", s.Len())
	}
	if got := s.At(20); !got.Equal(t0.Add(time.Second)) {
		t.Fatalf("At(20) = %v, want start+1s", got.Sub(t0))
	}
	// Fractional periods never drift: 1 row at 3 rows/s, slot 3 is exactly 1 s.
	f := NewSchedule(t0, t0.Add(time.Hour), 1, 3, 1)
	if got := f.At(3).Sub(t0); got != time.Second {
		t.Fatalf("At(3) at 3 rows/s = %v, want 1s", got)
	}
	if got := f.At(3 * 3600).Sub(t0); got != time.Hour {
		t.Fatalf("At(10800) at 3 rows/s = %v, want 1h", got)
	}
	if f.Len() != 3*3600 {
		t.Fatalf("len = %d, want %d", f.Len(), 3*3600)
	}
	// An end between slots includes the slot before it.
	if n := NewSchedule(t0, t0.Add(10*time.Second+time.Millisecond), 50, 100, 4).Len(); n != 21 {
		t.Fatalf("len with ragged end = %d, want 21", n)
	}
	if n := NewSchedule(t0, t0, 50, 100, 4).Len(); n != 0 {
		t.Fatalf("empty schedule has %d slots", n)
	}
}

func TestScheduleOnTimeAndEarly(t *testing.T) {
	s := NewSchedule(t0, t0.Add(time.Second), 50, 1000, 4)
	// A worker ready before its slot gets it with no skips and waits for At.
	slot, at, skipped, ok := s.Next(t0.Add(-time.Second))
	if !ok || slot != 0 || skipped != 0 || !at.Equal(t0) {
		t.Fatalf("early Next = %d %v %d %v", slot, at.Sub(t0), skipped, ok)
	}
	for i := int64(1); i < s.Len(); i++ {
		// Ready a little after the intended start (timer overshoot).
		slot, at, skipped, ok := s.Next(s.At(i).Add(time.Millisecond))
		if !ok || slot != i || skipped != 0 || !at.Equal(t0.Add(time.Duration(i)*50*time.Millisecond)) {
			t.Fatalf("slot %d: Next = %d %v %d %v", i, slot, at.Sub(t0), skipped, ok)
		}
	}
	if _, _, _, ok := s.Next(t0.Add(time.Hour)); ok {
		t.Fatal("Next after the last slot returned a slot")
	}
	if s.Missed() != 0 {
		t.Fatalf("missed = %d, want 0", s.Missed())
	}
}

func TestScheduleBoundedBacklog(t *testing.T) {
	s := NewSchedule(t0, t0.Add(10*time.Second), 50, 1000, 4)
	// Late by 10 slots: slots 0..10 are due, only the newest 4 may run.
	now := s.At(10).Add(time.Millisecond)
	slot, at, skipped, ok := s.Next(now)
	if !ok || slot != 7 || now.Sub(at) != 3*50*time.Millisecond+time.Millisecond || skipped != 7 {
		t.Fatalf("late Next = slot %d skipped %d ok %v, want 7, 7, true", slot, skipped, ok)
	}
	// Catch-up runs the rest of the backlog back to back, no more skips.
	for want := int64(8); want <= 10; want++ {
		slot, _, skipped, _ := s.Next(now)
		if slot != want || skipped != 0 {
			t.Fatalf("catch-up Next = %d (skipped %d), want %d", slot, skipped, want)
		}
	}
	// Caught up: the next slot is in the future.
	slot, at, skipped, _ = s.Next(now)
	if slot != 11 || skipped != 0 || !at.After(now) {
		t.Fatalf("after catch-up Next = %d at %v skipped %d", slot, at.Sub(now), skipped)
	}
	if s.Missed() != 7 {
		t.Fatalf("missed = %d, want 7", s.Missed())
	}
	// Within the backlog nothing is skipped: 3 slots due, backlog 4.
	slot, _, skipped, _ = s.Next(s.At(14))
	if slot != 12 || skipped != 0 {
		t.Fatalf("within backlog Next = %d skipped %d, want 12, 0", slot, skipped)
	}
	// Far past the end: all but the last 4 remaining slots are missed.
	rem := s.Remaining()
	slot, _, skipped, ok = s.Next(t0.Add(time.Minute))
	if !ok || skipped != rem-4 || slot != s.Len()-4 {
		t.Fatalf("past end Next = slot %d skipped %d ok %v, want %d, %d", slot, skipped, ok, s.Len()-4, rem-4)
	}
	if s.Missed() != 7+rem-4 {
		t.Fatalf("missed = %d, want %d", s.Missed(), 7+rem-4)
	}
}

func TestScheduleBacklogOne(t *testing.T) {
	s := NewSchedule(t0, t0.Add(time.Second), 100, 1000, 1)
	// Backlog 1: only the newest due slot runs.
	slot, _, skipped, _ := s.Next(s.At(5))
	if slot != 5 || skipped != 5 {
		t.Fatalf("Next = %d skipped %d, want 5, 5", slot, skipped)
	}
	if s.Backlog() != 1 || NewSchedule(t0, t0, 1, 1, 0).Backlog() != 1 {
		t.Fatal("backlog below 1 must be 1")
	}
}

func TestDefaultBacklog(t *testing.T) {
	for _, c := range []struct {
		period time.Duration
		want   int
	}{{500 * time.Millisecond, 4}, {50 * time.Millisecond, 4}, {5 * time.Millisecond, 5}, {time.Millisecond, 25}, {0, 4}} {
		if got := DefaultBacklog(c.period); got != c.want {
			t.Errorf("DefaultBacklog(%v) = %d, want %d", c.period, got, c.want)
		}
	}
}

func TestSleepUntil(t *testing.T) {
	tm := time.NewTimer(time.Hour)
	tm.Stop()
	start := time.Now()
	if err := SleepUntil(context.Background(), tm, start.Add(20*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 20*time.Millisecond {
		t.Fatalf("woke after %v, before the intended time", d)
	}
	// A past time returns at once.
	if err := SleepUntil(context.Background(), tm, start); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := SleepUntil(ctx, tm, time.Now().Add(time.Hour)); err == nil {
		t.Fatal("cancelled sleep returned nil")
	}
	if n := testing.AllocsPerRun(20, func() { _ = SleepUntil(context.Background(), tm, time.Now().Add(100*time.Microsecond)) }); n != 0 {
		t.Fatalf("SleepUntil allocates %v per call", n)
	}
}
