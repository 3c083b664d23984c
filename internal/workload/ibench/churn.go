package ibench

import (
	"context"
	"errors"
	"math"
	"sync/atomic"
	"time"

	"rumbench/internal/handoff"
	"rumbench/internal/measure"
	"rumbench/internal/model"
	"rumbench/internal/workload"
)

// ChurnRows returns the rows per client that step inserts: l.i1 gets 4/5 of
// --churn-rows and l.i2 the rest.
func (b *Bench) ChurnRows(step string) int64 {
	big := b.cfg.ChurnRows * 4 / 5
	if step == StepChurnBig {
		return big
	}
	return b.cfg.ChurnRows - big
}

// churnStep is l.i1 / l.i2: per client an inserter and a deleter that
// removes as many of the oldest rows as were inserted, so the table size is
// the same at the end of the step as at its start.
func (b *Bench) churnStep(step string) func(context.Context, *workload.Env) error {
	return func(ctx context.Context, env *workload.Env) error {
		bs := b.batchSize(churnBigBatch)
		if step == StepChurnSmall {
			bs = b.batchSize(churnSmallBatch)
		}
		n := b.ChurnRows(step)
		var until *measure.Deadline
		if b.cfg.ChurnSeconds > 0 {
			// Until the time is up: the warm-up (fixed, or until the
			// steady-state rule holds) comes first.
			n = math.MaxInt64
			until = env.Clock.Deadline(time.Duration(b.cfg.ChurnSeconds * float64(time.Second)))
		} else {
			env.Details["rows_per_client"] = n
		}
		env.Details["rows_per_commit"] = bs
		env.Details["max_delete_lag_rows"] = churnLag(bs)
		before := b.liveRows()
		b.settle()
		err := b.forEachTable(ctx, func(ctx context.Context, i int) error {
			return b.churnTable(ctx, env, i, n, until, bs)
		})
		b.growthDetails(env.Details, b.liveRows()-before)
		return err
	}
}

// churnLag bounds how many rows an inserter may run ahead of its deleter:
// the table never grows by more than this during l.i1/l.i2, and the step's
// rate is what the engine sustains for inserts and deletes together.
func churnLag(bs int) int64 {
	if lag := int64(10 * bs); lag > 1000 {
		return lag
	}
	return 1000
}

// churnTable runs l.i1/l.i2 on table i: an inserter per client of the
// table, each inserting n rows or until the deadline (when set), and one
// deleter for the table.
func (b *Bench) churnTable(ctx context.Context, env *workload.Env, i int, n int64, until *measure.Deadline, bs int) error {
	t := b.tables[i]
	var clients []*clientState
	for _, cl := range b.clients {
		if cl.t == t {
			clients = append(clients, cl)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// notify runs after each insert on the inserter's goroutine, with that
	// goroutine's own Waiter.
	inserters := func(notify func(w *handoff.Waiter, c model.Conn, k int64)) error {
		return runAll(ctx, len(clients), func(ctx context.Context, c int) error {
			var each func(model.Conn, int64)
			if notify != nil {
				w := &handoff.Waiter{}
				each = func(c model.Conn, k int64) { notify(w, c, k) }
			}
			err := b.insertRows(ctx, env.DB, env.Clock.Recorder(), clients[c], n, until, bs, each)
			if err != nil {
				// Also ends the waits of the other inserters: the
				// deleter cannot pass this client's failed batch.
				cancel()
			}
			return err
		})
	}
	if b.cfg.NoDeletes {
		return inserters(nil)
	}
	if err := syncLowerBound(ctx, env.DB, t); err != nil {
		return err
	}
	delRec := env.Clock.Recorder()
	var inserted, deleted atomic.Int64
	// The inserters signal rows (and their end), the deleter deletions:
	// each side waits for the other on its gate, in the kernel when its
	// connection waits there for the server (internal/handoff).
	var rows, progress handoff.Gate
	var insertsDone atomic.Bool
	maxLag := churnLag(bs) * int64(len(clients))

	delErr := make(chan error, 1)
	go func() {
		err := b.deleter(ctx, env.DB, delRec, t, bs, &inserted, &deleted, &rows, &progress, &insertsDone)
		if err != nil {
			// The first error ends the step: an inserter waiting for the
			// deleter to catch up must not wait forever.
			cancel()
		}
		delErr <- err
	}()
	err := inserters(func(w *handoff.Waiter, c model.Conn, k int64) {
		inserted.Add(k)
		rows.Signal()
		// Wait (outside the measured insert) while the deleter is too far
		// behind; a cancelled step is noticed by insertRows' loop.
		w.Kernel = model.BlocksInKernel(c)
		for {
			tok := progress.Token()
			if inserted.Load()-deleted.Load() <= maxLag || progress.Wait(ctx, w, tok) != nil {
				return
			}
		}
	})
	insertsDone.Store(true)
	rows.Signal()
	if err != nil {
		cancel()
		if derr := <-delErr; derr != nil && !errors.Is(derr, context.Canceled) {
			return derr // the deleter's failure cancelled the inserter
		}
		return err
	}
	return <-delErr
}
