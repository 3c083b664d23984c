package handoff

import (
	"context"
	"errors"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

var modes = []struct {
	name   string
	kernel bool
}{{"kernel", true}, {"parked", false}}

// TestWaitEndsAtSignal: a wait on the current token ends at the next
// Signal, and one on a stale token at once.
func TestWaitEndsAtSignal(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			var g Gate
			w := &Waiter{Kernel: m.kernel}
			ctx := context.Background()
			tok := g.Token()
			var signalled atomic.Bool
			go func() {
				time.Sleep(20 * time.Millisecond)
				signalled.Store(true)
				g.Signal()
			}()
			if err := g.Wait(ctx, w, tok); err != nil {
				t.Fatal(err)
			}
			if !signalled.Load() {
				t.Fatal("Wait returned before the Signal")
			}
			if g.Token() == tok {
				t.Fatal("Signal did not advance the token")
			}
			// tok is stale now.
			if err := g.Wait(ctx, w, tok); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestPingPong: two goroutines hand a count back and forth, each waiting
// for the other's step; a lost wake-up would stall them until the
// deadline. Both waiting modes, and one of each.
func TestPingPong(t *testing.T) {
	const n = 20000
	for _, pair := range [][2]bool{{true, true}, {false, false}, {true, false}} {
		t.Run(map[[2]bool]string{{true, true}: "kernel", {false, false}: "parked", {true, false}: "mixed"}[pair], func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			var turn atomic.Int64 // even: a's turn, odd: b's
			var g [2]Gate         // g[i] is signalled when it becomes i's turn
			errs := make(chan error, 2)
			player := func(me int, kernel bool) {
				w := &Waiter{Kernel: kernel}
				for {
					tok := g[me].Token()
					v := turn.Load()
					if v >= n {
						errs <- nil
						return
					}
					if int(v%2) != me {
						if err := g[me].Wait(ctx, w, tok); err != nil {
							errs <- err
							return
						}
						continue
					}
					turn.Add(1)
					g[1-me].Signal()
				}
			}
			go player(0, pair[0])
			go player(1, pair[1])
			for range 2 {
				if err := <-errs; err != nil {
					t.Fatalf("after %d of %d turns: %v", turn.Load(), n, err)
				}
			}
			if got := turn.Load(); got != n {
				t.Fatalf("%d turns, want %d", got, n)
			}
		})
	}
}

// TestWaitCancelled: a cancelled context ends a wait that no Signal ends.
func TestWaitCancelled(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			var g Gate
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				time.Sleep(20 * time.Millisecond)
				cancel()
			}()
			w := &Waiter{Kernel: m.kernel}
			err := g.Wait(ctx, w, g.Token())
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Wait returned %v, want context.Canceled", err)
			}
		})
	}
}

// BenchmarkPingPong: the process's CPU per handoff (user+sys), two
// goroutines taking turns, in each waiting mode.
func BenchmarkPingPong(b *testing.B) {
	for _, m := range modes {
		b.Run(m.name, func(b *testing.B) {
			var turn atomic.Int64
			var g [2]Gate
			n := int64(b.N)
			done := make(chan struct{}, 2)
			player := func(me int) {
				w := &Waiter{Kernel: m.kernel}
				for {
					tok := g[me].Token()
					v := turn.Load()
					if v >= n {
						done <- struct{}{}
						return
					}
					if int(v%2) != me {
						g[me].Wait(context.Background(), w, tok)
						continue
					}
					turn.Add(1)
					g[1-me].Signal()
				}
			}
			var r0, r1 syscall.Rusage
			syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
			b.ResetTimer()
			go player(0)
			go player(1)
			<-done
			<-done
			b.StopTimer()
			syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
			cpu := time.Duration(r1.Utime.Nano() + r1.Stime.Nano() - r0.Utime.Nano() - r0.Stime.Nano())
			b.ReportMetric(float64(cpu.Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}
