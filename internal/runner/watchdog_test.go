package runner

import (
	"context"
	"errors"
	"testing"
	"time"

	"rumbench/internal/measure"
)

// TestWatchdog: intervals without a finished operation for the timeout end
// the step with OpTimeoutError; one finished operation resets the wait; a
// zero timeout never fires.
func TestWatchdog(t *testing.T) {
	ops := measure.Ops{{Name: "insert", Unit: measure.UnitRows, Role: measure.RoleWrite}}
	start := time.Now()
	iv := func(i int, n int64) *measure.Interval {
		return &measure.Interval{Start: start.Add(time.Duration(i) * time.Second), Seconds: 1, Spec: ops,
			Ops: []*measure.OpInterval{{Ops: n}}}
	}
	ctx, dog := newWatchdog(context.Background(), 3*time.Second)
	dog.last = start
	dog.observe(iv(0, 5))
	dog.observe(iv(1, 0))
	dog.observe(iv(2, 0))
	dog.observe(iv(3, 1)) // progress: the wait starts again
	dog.observe(iv(4, 0))
	dog.observe(iv(5, 0))
	if ctx.Err() != nil {
		t.Fatal("fired after 2 s without progress, timeout 3 s")
	}
	dog.observe(iv(6, 0))
	var te *OpTimeoutError
	if err := dog.fired(ctx); !errors.As(err, &te) || te.Timeout != 3*time.Second || ctx.Err() == nil {
		t.Fatalf("after 3 s without progress: fired %v, ctx %v", err, ctx.Err())
	}

	ctx, dog = newWatchdog(context.Background(), 0)
	dog.last = start
	for i := 0; i < 100; i++ {
		dog.observe(iv(i, 0))
	}
	if ctx.Err() != nil || dog.fired(ctx) != nil {
		t.Fatal("a zero timeout fired")
	}
	dog.stop()
}
