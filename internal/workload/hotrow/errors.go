package hotrow

import (
	"strconv"
	"strings"
	"time"

	"rumbench/internal/gen"
)

// ErrKind classifies a failed update attempt.
type ErrKind int

const (
	ErrDeadlock ErrKind = iota
	ErrLockWaitTimeout
	ErrSerialization
	ErrBusy
	ErrOther
	numErrKinds
)

var errKindNames = [numErrKinds]string{"deadlock", "lock_wait_timeout", "serialization_failure", "busy", "other"}

func (k ErrKind) String() string { return errKindNames[k] }

// Retryable reports whether the policy retries the kind: the transaction was
// rolled back by the engine, so running it again cannot double-count.
func (k ErrKind) Retryable() bool { return k != ErrOther }

// Error texts by engine. Workloads never import drivers, so classification
// goes by the text the drivers put in their errors:
//   - MySQL/MariaDB (go-sql-driver "Error 1213 (40001): ..."): 1213 deadlock,
//     1205 lock wait timeout. 1213 carries SQLSTATE 40001 too, so deadlocks
//     are matched before serialization failures.
//   - PostgreSQL (pgx "... (SQLSTATE 40P01)"): 40P01 deadlock, 40001
//     serialization failure, 55P03 lock not available (lock_timeout).
//   - SQLite (mattn): SQLITE_BUSY "database is locked", SQLITE_LOCKED
//     "database table is locked", after busy_timeout.
//   - WiredTiger: WT_ROLLBACK, a write conflict between snapshot
//     transactions (first writer wins), counted as a deadlock: like one, the
//     engine rolled the loser back at once.
//   - RocksDB TransactionDB: "Timeout waiting to lock key" (TimedOut) is a
//     lock wait timeout; an optimistic transaction's failed commit ("Resource
//     busy", or "Try again" when the memtable history is too short to check)
//     is a serialization failure.
//   - pebble, bbolt: the kv layer serialises updates of a row with a lock, so
//     they have no transient errors; anything they return is "other".
var classes = []struct {
	kind ErrKind
	subs []string
}{
	{ErrDeadlock, []string{"Error 1213", "SQLSTATE 40P01", "deadlock", "WT_ROLLBACK"}},
	{ErrLockWaitTimeout, []string{"Error 1205", "SQLSTATE 55P03", "lock wait timeout", "lock timeout", "timeout waiting to lock key"}},
	{ErrSerialization, []string{"SQLSTATE 40001", "could not serialize", "serialization failure", "Resource busy", "Try again"}},
	{ErrBusy, []string{"SQLITE_BUSY", "SQLITE_LOCKED", "database is locked", "database table is locked", "database is busy"}},
}

// Classify returns the kind of a failed attempt's error (case-insensitive).
func Classify(err error) ErrKind {
	if err == nil {
		return ErrOther
	}
	msg := strings.ToLower(err.Error())
	for _, c := range classes {
		for _, s := range c.subs {
			if strings.Contains(msg, strings.ToLower(s)) {
				return c.kind
			}
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

// backoff is the pause before retry number attempt (0-based).
func backoff(attempt int, r *gen.Rand) time.Duration {
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
