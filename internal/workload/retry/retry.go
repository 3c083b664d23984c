// Package retry is how every workload classifies a failed transaction and
// retries it: the engines' error kinds (model.WithKind) mapped to the kinds
// counted in step details, and one backoff policy for all engines.
package retry

import (
	"errors"
	"strconv"
	"time"

	"rumbench/internal/gen"
	"rumbench/internal/model"
)

// ErrKind classifies a failed update attempt.
type ErrKind int

const (
	ErrDeadlock ErrKind = iota
	ErrLockWaitTimeout
	ErrSerialization
	ErrBusy
	ErrOther
	// NumErrKinds is the number of kinds: arrays indexed by ErrKind.
	NumErrKinds
)

var errKindNames = [NumErrKinds]string{"deadlock", "lock_wait_timeout", "serialization_failure", "busy", "other"}

func (k ErrKind) String() string { return errKindNames[k] }

// Retryable reports whether the policy retries the kind: the transaction was
// rolled back by the engine, so running it again cannot double-count.
func (k ErrKind) Retryable() bool { return k != ErrOther }

// kinds maps the engines' error kinds (model.WithKind, marked where each
// engine produces the error, from its codes) to the kinds counted here, in
// the order they are tried:
//   - deadlock: MySQL/MariaDB 1213, PostgreSQL 40P01, a RocksDB Busy that
//     names a deadlock, WiredTiger's WT_ROLLBACK (a write conflict
//     between snapshot transactions: like a deadlock, the engine rolled
//     the loser back at once), and a kv-layer lock wait that would have
//     closed a cycle of pebble's transactions;
//   - lock wait timeout: MySQL/MariaDB 1205, PostgreSQL 55P03
//     (lock_timeout), RocksDB's TimedOut, a kv-layer lock a transaction
//     waited too long for;
//   - serialization failure: PostgreSQL 40001, a RocksDB optimistic
//     commit that lost (Busy, or TryAgain when the memtable history is too
//     short to check);
//   - busy: SQLite's SQLITE_BUSY and SQLITE_LOCKED, after busy_timeout.
//
// pebble's transactions (row-locked by the kv layer) raise deadlock and
// lock wait timeout as RocksDB's do; bbolt, and pebble with
// transactions=serial, have no transient errors (one transaction at a
// time): anything they return is "other".
var kinds = []struct {
	engine error
	kind   ErrKind
}{
	{model.ErrDeadlock, ErrDeadlock},
	{model.ErrLockTimeout, ErrLockWaitTimeout},
	{model.ErrSerialization, ErrSerialization},
	{model.ErrBusy, ErrBusy},
}

// Classify returns the kind of a failed attempt's error.
func Classify(err error) ErrKind {
	if err == nil {
		return ErrOther
	}
	for _, k := range kinds {
		if errors.Is(err, k.engine) {
			return k.kind
		}
	}
	return ErrOther
}

// Retry policy, the same for every engine (engines differ in which transient
// errors they raise, see classes): a transient error is retried up to
// MaxRetries times, after a backoff of base·2^attempt capped at backoffMax,
// with equal jitter (half fixed, half random) so clients that collided do
// not collide again in lockstep. An update that still fails is given up and
// counted in retries_exhausted; an "other" error ends the cell.
const (
	backoffBase = time.Millisecond
	backoffMax  = 64 * time.Millisecond
)

// DefaultMaxRetries is the default retry budget of one update.
const DefaultMaxRetries = 10

// Backoff is the pause before retry number attempt (0-based).
func Backoff(attempt int, r *gen.Rand) time.Duration {
	d := backoffMax
	if attempt < 7 {
		d = min(backoffBase<<attempt, backoffMax)
	}
	half := d / 2
	return half + time.Duration(r.IntN(int64(half)+1))
}

// PolicyText describes the retry policy for the step details.
func PolicyText(maxRetries int) string {
	return "retry deadlock, lock_wait_timeout, serialization_failure and busy up to " +
		strconv.Itoa(maxRetries) + " times per update, backoff 1ms·2^n capped at 64ms with equal jitter; other errors end the cell"
}

// TxPolicyText describes the retry policy of multi-row transactions: the
// same, with whole transactions, and none started after the cell's time.
func TxPolicyText(maxRetries int) string {
	return "roll back the whole transaction and retry it (same rows, same order) after deadlock, lock_wait_timeout, serialization_failure and busy up to " +
		strconv.Itoa(maxRetries) + " times, backoff 1ms·2^n capped at 64ms with equal jitter, but start no attempt after the cell's time is up (abandoned_at_end); other errors end the cell"
}
