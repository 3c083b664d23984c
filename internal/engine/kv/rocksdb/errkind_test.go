//go:build rocksdb

package rocksdb

import (
	"errors"
	"testing"

	"rumbench/internal/engine/kv"
	"rumbench/internal/model"
)

// TestTxnErrorKinds: RocksDB's concurrency-control statuses, by the text
// grocksdb gives them, are kv conflicts with their model kind; other
// errors are neither.
func TestTxnErrorKinds(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want error
	}{
		{"Resource busy: Deadlock", model.ErrDeadlock},
		{"Operation timed out: Timeout waiting to lock key", model.ErrLockTimeout},
		{"Resource busy: ", model.ErrSerialization},
		{"Operation failed. Try again.: Transaction could not check for conflicts", model.ErrSerialization},
	} {
		err := txnError(errors.New(tc.msg))
		if !errors.Is(err, tc.want) || !errors.Is(err, kv.ErrConflict) || err.Error() != tc.msg {
			t.Errorf("txnError(%q) = %v, want a kv conflict of kind %v with the same text", tc.msg, err, tc.want)
		}
	}
	if err := txnError(errors.New("IO error: No space left on device")); errors.Is(err, kv.ErrConflict) || errors.Is(err, model.ErrLockTimeout) {
		t.Errorf("an IO error is a conflict: %v", err)
	}
}
