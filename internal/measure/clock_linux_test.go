package measure

import (
	"sync"
	"syscall"
	"testing"
	"time"
)

// A ticking clock runs every tick on one OS thread of its own and names its
// loop in each interval (Interval.Loop), which the sampler relies on to
// count that thread's CPU as bookkeeping; a clock ticked by hand names none.
func TestClockTicksOnItsOwnThread(t *testing.T) {
	ops := Ops{{Name: "op", Unit: UnitOps}}
	var mu sync.Mutex
	tids := map[int]bool{}
	loops := map[uint64]bool{}
	c := NewClock(10*time.Millisecond, ops, func(iv *Interval) {
		mu.Lock()
		tids[syscall.Gettid()] = true
		loops[iv.Loop] = true
		mu.Unlock()
		// Give the runtime reasons to move an unlocked goroutine.
		time.Sleep(time.Millisecond)
	})
	c.Start()
	time.Sleep(150 * time.Millisecond)
	c.Stop()
	if len(tids) != 1 {
		t.Errorf("ticks ran on %d threads, want 1", len(tids))
	}
	if len(loops) != 1 || loops[0] {
		t.Errorf("intervals named loops %v, want one, not 0", loops)
	}

	var manual []uint64
	m := NewClock(time.Second, ops, func(iv *Interval) { manual = append(manual, iv.Loop) })
	t0 := time.Now()
	m.StartAt(t0)
	m.Tick(t0.Add(time.Second))
	if len(manual) != 1 || manual[0] != 0 {
		t.Errorf("a hand-ticked clock named loops %v, want 0", manual)
	}
}
