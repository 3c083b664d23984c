package diskfull

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
	"testing"
)

func TestIs(t *testing.T) {
	full := []error{
		fmt.Errorf("commit: %w", &fs.PathError{Op: "write", Path: "/x/000007.log", Err: syscall.ENOSPC}),
		errors.New("insert 100 rows into pi1: database or disk is full"),
		errors.New("IO error: No space left on device: While appending to file"),
		errors.New("Error 1114 (HY000): The table 'pi1' is full"),
	}
	for _, err := range full {
		if !Is(err) {
			t.Errorf("Is(%q) = false", err)
		}
	}
	for _, err := range []error{nil, errors.New("connection refused"), errors.New("queue is full of work")} {
		if Is(err) {
			t.Errorf("Is(%v) = true", err)
		}
	}
}

// TestExplain: the error names the directory, its filesystem and that it is
// full, and still wraps the cause.
func TestExplain(t *testing.T) {
	dir := t.TempDir()
	cause := &fs.PathError{Op: "write", Path: dir + "/f", Err: syscall.ENOSPC}
	err := Explain(fmt.Errorf("insert: %w", cause), "data dir", dir)
	var de *Error
	if !errors.As(err, &de) || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("Explain = %v, want an *Error wrapping ENOSPC", err)
	}
	msg := err.Error()
	for _, w := range []string{"disk full", "data dir " + dir, "mounted on", "free of", "no space left"} {
		if !strings.Contains(msg, w) {
			t.Errorf("%q lacks %q", msg, w)
		}
	}
	if other := errors.New("connection refused"); Explain(other, "data dir", dir) != other {
		t.Error("Explain changed an unrelated error on a filesystem with space")
	}
	if e := Explain(cause, "data dir", ""); !strings.Contains(e.Error(), "server's disk is full") {
		t.Errorf("server error: %v", e)
	}
}
