package measure

import (
	"context"
	"math"
	"sync/atomic"
	"time"
)

// Wakeups follows the paced workers of a step (writers, deleters) so that a
// closed-loop worker sharing the process's threads with them (an in-process
// engine's query worker) lets the scheduler run them when they need a
// thread, and only then. Go runs a goroutine whose timer expired, or whose
// system call returned while every thread was taken, at the next
// scheduling point of a thread; a loop of engine calls with none in it
// would leave such a worker waiting up to a preemption time slice (10 ms)
// and miss its schedule for the client's sake. A yield at a fixed period
// all the time instead moves the loop between threads for nothing while
// the paced workers sleep, which is most of a step.
//
// A nil *Wakeups is valid: Sleep only sleeps and Yield is false.
type Wakeups struct {
	base  time.Time // monotonic origin of the stored times
	every time.Duration
	// Per worker: the time it sleeps until (ns from base), running, or
	// idle (not started, or ended).
	state []atomic.Int64
}

const (
	wakeRunning = -1
	wakeIdle    = math.MaxInt64
)

// NewWakeups returns the board of n paced workers, none started. A closed
// loop yields at most every `every` while one of them runs.
func NewWakeups(n int, every time.Duration) *Wakeups {
	w := &Wakeups{base: time.Now(), every: every, state: make([]atomic.Int64, n)}
	for i := range w.state {
		w.state[i].Store(wakeIdle)
	}
	return w
}

// Sleep is SleepUntil for worker i, noting at while it sleeps; once it
// returns the worker runs until its next Sleep or Done.
func (w *Wakeups) Sleep(ctx context.Context, i int, t *time.Timer, at time.Time) error {
	if w == nil {
		return SleepUntil(ctx, t, at)
	}
	w.state[i].Store(max(int64(at.Sub(w.base)), 0))
	err := SleepUntil(ctx, t, at)
	w.state[i].Store(wakeRunning)
	return err
}

// Done marks worker i ended.
func (w *Wakeups) Done(i int) {
	if w != nil {
		w.state[i].Store(wakeIdle)
	}
}

// Yield reports whether a closed loop that last yielded at last should
// yield at now: a worker sleeping in Sleep is due and has not run yet, or
// one runs (it may wait for a thread after a system call, a commit's
// fsync) and the loop has not yielded for `every`.
func (w *Wakeups) Yield(now, last time.Time) bool {
	if w == nil {
		return false
	}
	n := int64(now.Sub(w.base))
	running := false
	for i := range w.state {
		switch s := w.state[i].Load(); {
		case s == wakeRunning:
			running = true
		case s <= n:
			return true
		}
	}
	return running && now.Sub(last) >= w.every
}
