package ibench

import (
	"context"
	"fmt"
	"time"

	"rumbench/internal/model"
	"rumbench/internal/workload"
)

// maintain is the maint step: the engine's own maintenance action
// (model.Maintainer), timed as one operation, so its cost is its own entry
// in the results and not hidden in the step that follows; then the quiesce
// (model.Quiescer): a wait, read from the engine, until the background work
// the write steps left (compaction, flush, purge, checkpoint, vacuum) has
// finished, bounded by QuiesceMaxSeconds; then a pause of
// QuiescePauseSeconds. What was waited for, and how long, goes to the
// step's details (design §13).
func (b *Bench) maintain(ctx context.Context, env *workload.Env) error {
	if m, ok := env.DB.(model.Maintainer); ok {
		rec := env.Clock.Recorder()
		start := time.Now()
		err := m.Maintain(ctx)
		rec.Record(opMaintain, 1, time.Since(start), err != nil)
		if err != nil {
			return fmt.Errorf("maintenance: %w", err)
		}
		env.Details["maintenance"] = "done"
	} else {
		env.Details["maintenance"] = "skipped: the engine has no maintenance action"
	}
	if q, ok := env.DB.(model.Quiescer); ok {
		limit := time.Duration(b.cfg.QuiesceMaxSeconds * float64(time.Second))
		if limit <= 0 {
			limit = QuiesceMax("")
		}
		qctx, cancel := context.WithTimeout(ctx, limit)
		waits, err := q.Quiesce(qctx)
		cancel()
		if err != nil {
			return fmt.Errorf("quiesce: %w", err)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		env.Details["quiesce"] = waits
		reached := true
		for _, w := range waits {
			reached = reached && w.Reached
		}
		env.Details["quiesce_reached"] = reached
	} else {
		env.Details["quiesce"] = "nothing to wait for: the engine has no background work rumbench can read"
	}
	if p := b.cfg.QuiescePauseSeconds; p > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(p * float64(time.Second))):
		}
		env.Details["quiesce_pause_s"] = p
	}
	return nil
}

// QuiescePause is the pause after the quiesce when --quiesce-pause is auto:
// the insert benchmark's min(1200, 60 + rows/1M) seconds over the rows
// loaded, or the quick preset's 1 s (a first look: its engines settle in
// the wait).
func QuiescePause(preset string, totalRows int64) time.Duration {
	if preset == "quick" {
		return time.Second
	}
	return time.Duration(min(1200, 60+float64(totalRows)/1e6) * float64(time.Second))
}

// QuiesceMax bounds the wait when --quiesce-max is not given: a minute in
// the quick preset, an hour otherwise.
func QuiesceMax(preset string) time.Duration {
	if preset == "quick" {
		return time.Minute
	}
	return time.Hour
}
