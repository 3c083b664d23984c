package measure

import (
	"context"
	"math"
	"testing"
	"time"
)

// A worker is due from the time it sleeps until to its wakeup's return,
// and not before nor after; a nil board is never due.
func TestWakeupsDue(t *testing.T) {
	w := NewWakeups(2)
	now := time.Now()
	if w.Due(now.Add(time.Hour)) {
		t.Fatal("due with nobody asleep")
	}
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	at := now.Add(30 * time.Millisecond)
	done := make(chan error)
	go func() { done <- w.Sleep(context.Background(), 1, timer, at) }()
	for w.at[1].Load() == math.MaxInt64 {
		time.Sleep(time.Millisecond) // until the worker has gone to sleep
	}
	if w.Due(at.Add(-time.Microsecond)) {
		t.Error("due before its time")
	}
	if !w.Due(at) || !w.Due(at.Add(time.Second)) {
		t.Error("not due at or after its time")
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if time.Now().Before(at) {
		t.Error("woke early")
	}
	if w.Due(at.Add(time.Second)) {
		t.Error("still due once it has run")
	}
	var none *Wakeups
	if none.Due(now.Add(time.Hour)) {
		t.Error("a nil board is due")
	}
	if err := none.Sleep(context.Background(), 0, timer, time.Now().Add(time.Millisecond)); err != nil {
		t.Error(err)
	}
	// Cancelled while asleep: returns the context's error, not due.
	ctx, cancel := context.WithCancel(context.Background())
	go func() { done <- w.Sleep(ctx, 0, timer, time.Now().Add(time.Hour)) }()
	for w.at[0].Load() == math.MaxInt64 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; err != context.Canceled {
		t.Errorf("cancelled sleep: %v", err)
	}
	if w.Due(time.Now().Add(2 * time.Hour)) {
		t.Error("due after a cancelled sleep")
	}
}
