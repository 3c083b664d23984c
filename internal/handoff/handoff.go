// Package handoff lets one worker goroutine wait for another's progress
// (l.i1's inserter for its deleter, the deleter for new rows) the way the
// worker waits for its server's replies.
//
// A worker whose connection blocks in the kernel (internal/engine/sql/
// blockconn) keeps its thread and its P, as running, through every wait
// for the server. Parking it on a channel between statements undoes that:
// the waker readies it into its own P's queue and wakes an idle thread to
// steal it, each side's thread sleeps and wakes in a futex of the
// scheduler's, and the waker, going straight into its next system call
// with a goroutine queued behind it, has its P taken by sysmon, which then
// polls every 20 µs for a millisecond (docs/client-floor.md has the
// figures). A Gate waits in a futex instead, as two C threads hand over
// through a condition variable: the waiter keeps its P, the signal is one
// system call that wakes that thread, and no other thread or goroutine is
// involved. Workers that park anyway (a connection in Go's netpoller, an
// embedded engine's worker, systems without futexes) wait on a channel.
package handoff

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Gate is an event count: Token reads it, Signal advances it, and Wait
// returns once it has moved past a token. A waiter reads the token before
// it looks at the state it waits on, so a signal between the look and the
// wait is never lost. The zero Gate is ready to use; a Gate must not be
// copied.
type Gate struct {
	seq    atomic.Uint32 // the count; the futex word
	kernel atomic.Int32  // waiters in the futex
	parked atomic.Int32  // waiters on ch
	mu     sync.Mutex    // guards ch
	ch     chan struct{} // closed at the next Signal, made by a parked waiter
}

// Token is the gate's count now.
func (g *Gate) Token() uint32 { return g.seq.Load() }

// Signal advances the count and wakes every waiter. It costs an atomic add
// when nobody waits, a futex wake when a waiter is in the kernel.
func (g *Gate) Signal() {
	g.seq.Add(1)
	if g.kernel.Load() > 0 {
		futexWakeAll(&g.seq)
	}
	if g.parked.Load() > 0 {
		g.mu.Lock()
		if g.ch != nil {
			close(g.ch)
			g.ch = nil
		}
		g.mu.Unlock()
	}
}

// Waiter is one goroutine's side of its waits.
type Waiter struct {
	// Kernel chooses how Wait waits: in a futex (the goroutine's
	// connection waits in the kernel too) or parked on a channel.
	Kernel bool
}

// waitSlice bounds one futex wait, so a cancelled context is seen.
var waitSlice = 5 * time.Millisecond

// Wait returns once the gate's count differs from tok, or with ctx's error
// once ctx is done.
func (g *Gate) Wait(ctx context.Context, w *Waiter, tok uint32) error {
	if w.Kernel && futexSupported {
		return g.waitKernel(ctx, tok)
	}
	return g.waitParked(ctx, tok)
}

// waitKernel sleeps in futex waits, raw system calls as blockconn's reads
// are: to the scheduler the goroutine is running, so sysmon never takes
// its P. The runtime's preemption signal (sysmon's, after 10 ms on one
// time slice; a stop of the world) ends the wait with EINTR, and the
// goroutine answers it before waiting again.
func (g *Gate) waitKernel(ctx context.Context, tok uint32) error {
	g.kernel.Add(1)
	defer g.kernel.Add(-1)
	for g.seq.Load() == tok {
		if err := ctx.Err(); err != nil {
			return err
		}
		if futexWait(&g.seq, tok, waitSlice) {
			runtime.Gosched()
		}
	}
	return nil
}

func (g *Gate) waitParked(ctx context.Context, tok uint32) error {
	// Counted before the count is checked, so a Signal that advances it
	// after the check sees this waiter and closes the channel it holds.
	g.parked.Add(1)
	defer g.parked.Add(-1)
	g.mu.Lock()
	if g.seq.Load() != tok {
		g.mu.Unlock()
		return nil
	}
	if g.ch == nil {
		g.ch = make(chan struct{})
	}
	ch := g.ch
	g.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
