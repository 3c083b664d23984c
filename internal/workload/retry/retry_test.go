package retry

import (
	"errors"
	"fmt"
	"rumbench/internal/model"
	"testing"
)

// TestClassify: the kinds engines mark their errors with, wrapped by the
// layers above, map to the kinds counted; text alone is "other", however
// it reads (the engines' real errors are tested in their packages).
func TestClassify(t *testing.T) {
	cases := []struct {
		kind error
		want ErrKind
	}{
		{model.ErrDeadlock, ErrDeadlock},
		{model.ErrLockTimeout, ErrLockWaitTimeout},
		{model.ErrSerialization, ErrSerialization},
		{model.ErrBusy, ErrBusy},
		{model.ErrDuplicateKey, ErrOther},
		{model.ErrDiskFull, ErrOther},
		{model.ErrConflict, ErrOther}, // not a kind engines give
	}
	for _, c := range cases {
		err := fmt.Errorf("update hr1: %w", model.WithKind(errors.New("engine text"), c.kind))
		if got := Classify(err); got != c.want {
			t.Errorf("Classify(error of kind %v) = %s, want %s", c.kind, got, c.want)
		}
	}
	for _, msg := range []string{"update hr1: Error 1213 (40001): Deadlock found", "database is locked", "WT_ROLLBACK"} {
		if got := Classify(errors.New(msg)); got != ErrOther {
			t.Errorf("Classify(text %q) = %s, want other: workloads do not read engines' text", msg, got)
		}
	}
	if ErrOther.Retryable() || !ErrBusy.Retryable() {
		t.Fatal("retry policy: other must not be retried, busy must")
	}
}
