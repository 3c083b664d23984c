package handoff

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// TestKernelWaitAnswersTheRuntime: a goroutine asleep in a kernel wait
// does not hold up the garbage collector's stops of the world: the
// runtime's preemption signal ends its sleep at once. With 30-second
// sleeps, the first collection would wait half a minute for the sleep to
// end (as it would for a futex wait, which the kernel restarts after the
// signal); answered, three collections take milliseconds, and under a
// loaded CI (other test packages on both cores) about a second. The bound
// sits between the two: ten 1-second sleeps against 2 s (before) failed
// at load 3 with the wait answering (3.0 s).
func TestKernelWaitAnswersTheRuntime(t *testing.T) {
	defer func(d time.Duration) { waitSlice = d }(waitSlice)
	waitSlice = 30 * time.Second
	var g Gate
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- g.Wait(ctx, &Waiter{Kernel: true}, g.Token())
	}()
	time.Sleep(50 * time.Millisecond) // asleep by now
	start := time.Now()
	for range 3 {
		runtime.GC()
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("3 collections took %v beside a goroutine asleep in a kernel wait: the wait does not answer the runtime", d)
	}
	g.Signal()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
