package model

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestWaitIdleReached(t *testing.T) {
	calls := 0
	w, err := WaitIdle(context.Background(), "jobs", "none", func(context.Context) (bool, string, error) {
		calls++
		return calls == 3, fmt.Sprintf("%d running", 3-calls), nil
	})
	if err != nil || !w.Reached || calls != 3 {
		t.Fatalf("WaitIdle = %+v, %v after %d reads", w, err, calls)
	}
	if w.What != "jobs" || w.Until != "none" || w.Before != "2 running" || w.After != "0 running" {
		t.Fatalf("readings: %+v", w)
	}
	// Two polls between three reads.
	if min := (2 * QuiescePoll).Seconds(); w.Seconds < min*0.9 {
		t.Fatalf("waited %v s, want at least %v", w.Seconds, min)
	}
}

func TestWaitIdleLimit(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*QuiescePoll)
	defer cancel()
	w, err := WaitIdle(ctx, "jobs", "none", func(ctx context.Context) (bool, string, error) {
		return false, "busy", ctx.Err()
	})
	if err != nil {
		t.Fatalf("the limit is not an error: %v", err)
	}
	if w.Reached || w.Before != "busy" || w.After != "busy" {
		t.Fatalf("WaitIdle = %+v", w)
	}
}

func TestWaitIdleError(t *testing.T) {
	_, err := WaitIdle(context.Background(), "jobs", "none", func(context.Context) (bool, string, error) {
		return false, "", errors.New("permission denied")
	})
	if err == nil || !strings.Contains(err.Error(), "read jobs: permission denied") {
		t.Fatalf("err = %v", err)
	}
}

func TestWaitIdleNoWaitWhenIdle(t *testing.T) {
	calls := 0
	w, err := WaitIdle(context.Background(), "jobs", "none", func(context.Context) (bool, string, error) {
		calls++
		return true, "0 running", nil
	})
	if err != nil || !w.Reached || calls != 1 || w.Before != "0 running" {
		t.Fatalf("an idle engine was read %d times: %+v, %v", calls, w, err)
	}
}
