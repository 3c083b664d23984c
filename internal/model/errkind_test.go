package model

import (
	"errors"
	"fmt"
	"testing"
)

func TestWithKind(t *testing.T) {
	base := errors.New("Error 1213 (40001): Deadlock found")
	err := fmt.Errorf("update t: %w", WithKind(base, ErrDeadlock))
	if err.Error() != "update t: "+base.Error() {
		t.Errorf("message changed: %q", err)
	}
	for _, k := range []error{ErrDeadlock, ErrConflict, base} {
		if !errors.Is(err, k) {
			t.Errorf("errors.Is(%v, %v) = false", err, k)
		}
	}
	for _, k := range []error{ErrSerialization, ErrLockTimeout, ErrBusy, ErrDiskFull, ErrDuplicateKey} {
		if errors.Is(err, k) {
			t.Errorf("a deadlock matches %v", k)
		}
	}
	if !errors.Is(WithKind(base, ErrSerialization), ErrConflict) {
		t.Error("a serialization failure is not a conflict")
	}
	if errors.Is(WithKind(base, ErrLockTimeout), ErrConflict) || errors.Is(WithKind(base, ErrBusy), ErrConflict) {
		t.Error("a lock timeout or busy matches ErrConflict")
	}
	if WithKind(nil, ErrBusy) != nil || WithKind(base, nil) != base {
		t.Error("WithKind of nil error or nil kind changed it")
	}
}
