package model

import "errors"

// Error kinds. Engines mark their errors with a kind where they produce
// them (WithKind), from their own codes, so workloads tell a lost conflict
// from a failure with errors.Is and never read an engine's text. The
// marked error keeps its message.
var (
	// ErrConflict is matched by every error of a transaction that lost to
	// a concurrent one and was rolled back (ErrDeadlock,
	// ErrSerialization): running it again cannot double-count.
	ErrConflict = &ErrorKind{name: "conflict"}
	// ErrDeadlock: the engine broke a lock cycle, or a first-writer-wins
	// write conflict, by rolling this transaction back at once
	// (MySQL 1213, PostgreSQL 40P01, WiredTiger's WT_ROLLBACK).
	ErrDeadlock = &ErrorKind{name: "deadlock", parent: ErrConflict}
	// ErrSerialization: a snapshot's or an optimistic transaction's
	// commit found its rows changed (PostgreSQL 40001, RocksDB's Busy).
	ErrSerialization = &ErrorKind{name: "serialization failure", parent: ErrConflict}
	// ErrLockTimeout: a statement waited its lock timeout for a row lock
	// (MySQL 1205, PostgreSQL 55P03, RocksDB's TimedOut).
	ErrLockTimeout = &ErrorKind{name: "lock wait timeout"}
	// ErrBusy: a database-wide write lock was held past the busy timeout
	// (SQLite's SQLITE_BUSY and SQLITE_LOCKED).
	ErrBusy = &ErrorKind{name: "busy"}
	// ErrDiskFull: the engine or server ran out of space (diskfull
	// recognises it, and names the filesystem).
	ErrDiskFull = &ErrorKind{name: "disk full"}
)

// ErrorKind is one of the kinds above. ErrDuplicateKey is a kind too, an
// older plain sentinel.
type ErrorKind struct {
	name   string
	parent *ErrorKind
}

func (k *ErrorKind) Error() string { return k.name }

// Is makes a kind match its parent (a deadlock is a conflict).
func (k *ErrorKind) Is(target error) bool { return k.parent != nil && target == error(k.parent) }

// WithKind marks err with kind, keeping err's message and chain; nil
// stays nil and a nil kind leaves err as it is.
func WithKind(err error, kind error) error {
	if err == nil || kind == nil || errors.Is(err, kind) {
		return err
	}
	return &kindError{kind: kind, err: err}
}

type kindError struct {
	kind error
	err  error
}

func (e *kindError) Error() string   { return e.err.Error() }
func (e *kindError) Unwrap() []error { return []error{e.err, e.kind} }
