package ibench

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"rumbench/internal/handoff"
	"rumbench/internal/measure"
	"rumbench/internal/model"
)

// deleter removes the oldest rows, batch by batch, as long as fewer rows have
// been deleted than inserted (and only committed ones, see tableState);
// after the inserts end it catches up exactly.
func (b *Bench) deleter(ctx context.Context, db model.DB, rec *measure.Recorder, t *tableState, bs int, inserted, deletedCount *atomic.Int64, rows, progress *handoff.Gate, insertsDone *atomic.Bool) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("connect deleter: %w", err)
	}
	defer conn.Close()
	var deleted int64
	var w handoff.Waiter
	from := make(model.Row, 1)
	for {
		// The token before anything it guards is read: a signal after this
		// point ends the wait below. insertsDone before the count so a
		// finished step sees the final count.
		tok := rows.Token()
		finished := insertsDone.Load()
		target := inserted.Load()
		// Rows in flight below a committed batch of another client: wait
		// for them (a signal follows their commit).
		if deleted >= target || (!finished && t.deletable() <= 0) {
			if finished {
				return nil
			}
			w.Kernel = model.BlocksInKernel(conn)
			if err := rows.Wait(ctx, &w, tok); err != nil {
				return err
			}
			continue
		}
		k := min(int64(bs), target-deleted)
		if !finished {
			// Once the inserts are done every batch has committed.
			k = min(k, t.deletable())
		}
		start := time.Now()
		from[0].Int = t.minPK.Load()
		got, err := conn.DeleteOldest(ctx, t.schema, from, int(k))
		rec.Record(opDelete, got, time.Since(start), err != nil)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("delete from %s: %w", t.schema.Name, err)
		}
		if got == 0 {
			return fmt.Errorf("delete from %s: no rows left to delete (expected %d more)", t.schema.Name, target-deleted)
		}
		deleted += int64(got)
		t.minPK.Add(int64(got))
		deletedCount.Store(deleted)
		progress.Signal()
	}
}
