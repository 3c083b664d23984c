package execute

import (
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"rumbench/internal/runner"
)

// lockedBuffer is a writer the signal goroutine and the test share.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestSignalsCatchEveryOne: the first SIGTERM cancels the run's context; a
// second one, arriving while the run stops, is caught too (the process
// lives on to remove what it created) and said on stderr; a third as well.
func TestSignalsCatchEveryOne(t *testing.T) {
	for _, child := range []bool{false, true} {
		var stderr lockedBuffer
		e := New(child, nil, io.Discard, &stderr, 2, nil)
		ctx, stop := e.signals()
		syscall.Kill(os.Getpid(), syscall.SIGTERM)
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
			t.Fatal("SIGTERM did not cancel the context")
		}
		syscall.Kill(os.Getpid(), syscall.SIGTERM)
		syscall.Kill(os.Getpid(), syscall.SIGINT)
		deadline := time.Now().Add(10 * time.Second)
		want := 0
		if !child {
			want = 2 // a child's parent speaks for it
		}
		for strings.Count(stderr.String(), "already stopping") < want && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(100 * time.Millisecond) // a child's would have come by now
		stop()
		if n := strings.Count(stderr.String(), "already stopping"); n != want {
			t.Errorf("child %v: %d \"already stopping\" lines after two more signals, want %d: %q", child, n, want, stderr.String())
		}
	}
}

// TestChildError: a child's error keeps its kind (interrupted, bad input)
// and is told apart from the parent's.
func TestChildError(t *testing.T) {
	parent := New(false, nil, io.Discard, io.Discard, 2, nil)
	child := New(true, nil, io.Discard, io.Discard, 2, nil)
	if err := parent.done(runner.ErrInterrupted); InChild(err) || !errors.Is(err, runner.ErrInterrupted) {
		t.Errorf("parent's error: %v (in child %v)", err, InChild(err))
	}
	err := child.done(runner.ErrInterrupted)
	if !InChild(err) || !errors.Is(err, runner.ErrInterrupted) {
		t.Errorf("child's error: %v (in child %v)", err, InChild(err))
	}
	var bad *runner.BadInputError
	if err := child.done(&runner.BadInputError{Err: errors.New("x")}); !errors.As(err, &bad) || err.Error() != "x" {
		t.Errorf("child's bad input: %v", err)
	}
	if child.done(nil) != nil {
		t.Error("a child's success is an error")
	}
}
