package handoff

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// TestKernelWaitAnswersTheRuntime: a goroutine asleep in a kernel wait
// does not hold up the garbage collector's stops of the world: the
// runtime's preemption signal ends its sleep at once. With one-second
// sleeps, ten collections would take seconds if each waited for a sleep to
// end (as it would for a futex wait, which the kernel restarts after the
// signal).
func TestKernelWaitAnswersTheRuntime(t *testing.T) {
	defer func(d time.Duration) { waitSlice = d }(waitSlice)
	waitSlice = time.Second
	var g Gate
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- g.Wait(ctx, &Waiter{Kernel: true}, g.Token())
	}()
	time.Sleep(50 * time.Millisecond) // asleep by now
	start := time.Now()
	for range 10 {
		runtime.GC()
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("10 collections took %v beside a goroutine asleep in a kernel wait: the wait does not answer the runtime", d)
	}
	g.Signal()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
