package measure

import (
	"context"
	"math"
	"sync/atomic"
	"time"
)

// Wakeups holds, for each paced worker of a step, the time it sleeps until,
// so that a closed-loop worker sharing the process's threads with them (an
// in-process engine's query worker) lets the scheduler run them when one is
// due, and only then. Go runs an expired timer's goroutine at the next
// scheduling point of a thread; a loop of engine calls with none in it
// would leave a due writer waiting up to a preemption time slice (10 ms)
// and miss its schedule for the client's sake. A yield at a fixed period
// instead moves the loop between threads and cores all the time, which made
// bbolt's calls 15–30% dearer (docs/kv-floor.md).
//
// A nil *Wakeups is valid: Sleep only sleeps and Due is false.
type Wakeups struct {
	base time.Time // monotonic origin of the stored times
	at   []atomic.Int64
}

// NewWakeups returns a board for n workers, none of them asleep.
func NewWakeups(n int) *Wakeups {
	w := &Wakeups{base: time.Now(), at: make([]atomic.Int64, n)}
	for i := range w.at {
		w.at[i].Store(math.MaxInt64)
	}
	return w
}

// Sleep is SleepUntil for worker i, noting at while it sleeps. Once it
// returns the worker runs, and is due no more.
func (w *Wakeups) Sleep(ctx context.Context, i int, t *time.Timer, at time.Time) error {
	if w == nil {
		return SleepUntil(ctx, t, at)
	}
	w.at[i].Store(int64(at.Sub(w.base)))
	err := SleepUntil(ctx, t, at)
	w.at[i].Store(math.MaxInt64)
	return err
}

// Due reports whether a worker sleeping in Sleep is due at now and has not
// run yet.
func (w *Wakeups) Due(now time.Time) bool {
	if w == nil {
		return false
	}
	n := int64(now.Sub(w.base))
	for i := range w.at {
		if w.at[i].Load() <= n {
			return true
		}
	}
	return false
}
