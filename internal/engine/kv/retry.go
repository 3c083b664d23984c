package kv

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// Backoff of a retried write (commitBatch, DeleteOldest): base·2^n capped at
// retryMax, with jitter in [d/2, d) so that two writers that failed each
// other do not meet again. MongoDB's writeConflictRetry backs off likewise
// and has no retry limit either: a write the engine rolled back to make
// progress (cache pressure) is retried until it goes through or the
// operation's deadline passes.
const (
	retryBase = 100 * time.Microsecond
	retryMax  = 50 * time.Millisecond
)

// Retries implements model.RetryReporter: the writes rolled back by the
// store (ErrConflict) and run again since the DB was opened.
func (d *DB) Retries() int64 { return d.retries.Load() }

// retryWait counts a retry and sleeps its backoff (try is 0-based); it
// fails only when ctx ends first, with err (the conflict that needed the
// retry) and the number of tries in the error.
func (d *DB) retryWait(ctx context.Context, try int, err error) error {
	d.retries.Add(1)
	b := min(retryBase<<min(try, 16), retryMax)
	b = b/2 + rand.N(b/2)
	t := time.NewTimer(b)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return fmt.Errorf("gave up after %d tries (%w): %w", try+1, context.Cause(ctx), err)
	case <-t.C:
		return nil
	}
}

// commitBatch commits b, and commits it again after a conflict (the store
// rolled the whole batch back and kept its writes, see Batch), until it
// succeeds or ctx ends. A batch's writes are blind, so running it again
// cannot lose or duplicate anything the caller checked first (the caller's
// key locks are still held). b is empty when it returns.
func (d *DB) commitBatch(ctx context.Context, b Batch) error {
	for try := 0; ; try++ {
		err := b.Commit()
		if err == nil || !errors.Is(err, ErrConflict) {
			return err
		}
		if werr := d.retryWait(ctx, try, err); werr != nil {
			b.Reset()
			return werr
		}
	}
}
