package measure

import (
	"context"
	"testing"
	"time"
)

// A closed loop yields to a worker from the time it sleeps until to its
// wakeup, and every `every` while one runs; never while they all sleep
// with time to go, nor once they are done. A nil board never yields.
func TestWakeupsYield(t *testing.T) {
	const every = 500 * time.Microsecond
	w := NewWakeups(2, every)
	now := time.Now()
	if w.Yield(now.Add(time.Hour), now) {
		t.Fatal("yields with no worker started")
	}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	at := now.Add(30 * time.Millisecond)
	done := make(chan error)
	go func() { done <- w.Sleep(context.Background(), 1, timer, at) }()
	for w.state[1].Load() == wakeIdle {
		time.Sleep(time.Millisecond) // until the worker has gone to sleep
	}
	if w.Yield(at.Add(-time.Microsecond), now.Add(-time.Hour)) {
		t.Error("yields to a worker before its time")
	}
	if !w.Yield(at, at) || !w.Yield(at.Add(time.Second), at.Add(time.Second)) {
		t.Error("no yield to a worker due")
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if time.Now().Before(at) {
		t.Error("woke early")
	}
	// Running: a yield every `every`, not more often.
	later := at.Add(time.Second)
	if w.Yield(later, later.Add(-every/2)) {
		t.Error("yields within `every` of the last yield while a worker runs")
	}
	if !w.Yield(later, later.Add(-every)) {
		t.Error("no yield `every` after the last while a worker runs")
	}
	w.Done(1)
	if w.Yield(later, later.Add(-time.Hour)) {
		t.Error("yields once the worker is done")
	}
	var none *Wakeups
	if none.Yield(now.Add(time.Hour), now.Add(-time.Hour)) {
		t.Error("a nil board yields")
	}
	none.Done(0)
	if err := none.Sleep(context.Background(), 0, timer, time.Now().Add(time.Millisecond)); err != nil {
		t.Error(err)
	}
	// Cancelled while asleep: the context's error.
	ctx, cancel := context.WithCancel(context.Background())
	go func() { done <- w.Sleep(ctx, 0, timer, time.Now().Add(time.Hour)) }()
	for w.state[0].Load() == wakeIdle {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; err != context.Canceled {
		t.Errorf("cancelled sleep: %v", err)
	}
}
