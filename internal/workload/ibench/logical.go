package ibench

import (
	"context"

	"rumbench/internal/workload"
)

// withLogicalBytes wraps a step so it reports the denominators of write and
// space amplification (docs/metrics.md):
//   - logical bytes inserted: LogicalRowBytes summed over the rows generated
//     for insertion during the step (exact; a batch whose insert failed and
//     ended the step is included);
//   - logical live bytes: live rows at step end × the expected logical row
//     size, 8 bytes per integer column plus the mean pad, (pad_min+pad_max)/2,
//     since pad lengths are uniform in [pad_min, pad_max]. Deleted rows'
//     pads are not regenerated, so this is an estimate with a relative error
//     of about 1/sqrt(rows) in the pad part.
//
// A once step of a sharded run (done by shard 0 for every table) reports the
// live bytes of every table; other steps those of the shard's own tables.
func (b *Bench) withLogicalBytes(step string, run func(context.Context, *workload.Env) error) func(context.Context, *workload.Env) error {
	return func(ctx context.Context, env *workload.Env) error {
		before := b.filledLogicalBytes()
		err := run(ctx, env)
		if env.Details != nil {
			tables := b.tables
			if b.sharded() && b.Once(step) {
				tables = b.all
			}
			env.Details[workload.DetailLogicalBytesInserted] = b.filledLogicalBytes() - before
			env.Details[workload.DetailLogicalLiveBytes] = b.liveLogicalBytes(tables)
		}
		return err
	}
}

func (b *Bench) filledLogicalBytes() int64 {
	var n int64
	for _, c := range b.clients {
		n += c.gen.FilledLogicalBytes()
	}
	return n
}

// ExpectedRowBytes is the mean logical size of a row under this config.
func (b *Bench) ExpectedRowBytes() float64 {
	return float64(8*(numCols-1)) + float64(b.cfg.PadMin+b.cfg.PadMax)/2
}

func (b *Bench) liveLogicalBytes(tables []*tableState) int64 {
	var rows int64
	for _, t := range tables {
		rows += t.Rows()
	}
	return int64(float64(rows)*b.ExpectedRowBytes() + 0.5)
}
