package runner

import (
	"context"
	"fmt"
	"sync"
	"time"

	"rumbench/internal/measure"
)

// DefaultOpTimeout is --op-timeout's default: how long a step may go
// without any operation finishing before it is ended as hung.
const DefaultOpTimeout = 60 * time.Second

// OpTimeoutError ends a step in which no operation finished for the
// --op-timeout: the engine (or its server) stopped answering.
type OpTimeoutError struct {
	Timeout time.Duration
}

func (e *OpTimeoutError) Error() string {
	return fmt.Sprintf("no operation finished for %s (--op-timeout): the engine stopped answering (a stopped, hung or overloaded server?); the step is marked incomplete (raise --op-timeout if single operations rightly take longer)", e.Timeout)
}

// watchdog cancels a step's context when no operation has finished (with
// success or error) for timeout. It is fed by the clock's interval hook, so
// it sees progress at interval granularity and costs nothing on the
// workers' paths.
type watchdog struct {
	timeout time.Duration
	cancel  context.CancelCauseFunc

	mu   sync.Mutex
	last time.Time
	done bool
}

// newWatchdog returns a context for the step and the watchdog guarding it;
// a zero timeout (or a step of long operations) gives a watchdog that never
// fires.
func newWatchdog(ctx context.Context, timeout time.Duration) (context.Context, *watchdog) {
	ctx, cancel := context.WithCancelCause(ctx)
	return ctx, &watchdog{timeout: timeout, cancel: cancel, last: time.Now()}
}

// observe is called with every closed interval.
func (w *watchdog) observe(iv *measure.Interval) {
	if w.timeout <= 0 {
		return
	}
	now := iv.Start.Add(time.Duration(iv.Seconds * float64(time.Second)))
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, o := range iv.Ops {
		if o != nil && o.Ops > 0 {
			w.last = now
			return
		}
	}
	if !w.done && now.Sub(w.last) >= w.timeout {
		w.done = true
		w.cancel(&OpTimeoutError{Timeout: w.timeout})
	}
}

// fail ends the step with err (a results bundle that cannot be written).
func (w *watchdog) fail(err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.done = true
		w.cancel(err)
	}
}

// start resets the idle time at the step's start.
func (w *watchdog) start() {
	w.mu.Lock()
	w.last = time.Now()
	w.mu.Unlock()
}

// fired returns the error the watchdog ended the step with (a timeout or
// a failed bundle write), or nil.
func (w *watchdog) fired(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		return nil
	}
	return context.Cause(ctx)
}

// stop releases the step's context.
func (w *watchdog) stop() { w.cancel(context.Canceled) }
