package runner

import (
	"context"
	"time"

	"rumbench/internal/engine"
	"rumbench/internal/measure"
	"rumbench/internal/model"
	"rumbench/internal/results"
	"rumbench/internal/shard"
	"rumbench/internal/workload"
)

// ShardOptions make this process one shard of a sharded run (--shard i/N):
// it runs the workload's part for shard Spec.Index (workload.Sharder) and
// meets the other shards at a barrier on the server before every step.
type ShardOptions struct {
	Spec shard.Spec
	// RunID names the run in the barrier table; every shard of the run
	// must be given the same.
	RunID string
	// Timeout is how long a shard waits for another that stopped
	// answering (no heartbeat) before it ends its step with an error.
	Timeout time.Duration
}

// checkShard refuses a sharded run of engines the shards cannot share.
func (o *Options) checkShard() error {
	if o.Shard == nil {
		return nil
	}
	for _, v := range o.Variants {
		d, err := engine.Lookup(v.Engine)
		if err != nil {
			return &BadInputError{Err: err}
		}
		if err := shard.CheckDriver(d); err != nil {
			return &BadInputError{Err: err}
		}
	}
	if o.Shard.Timeout <= 0 {
		return badInput("--shard-timeout must be positive, got %s", o.Shard.Timeout)
	}
	return nil
}

// shardWorkload restricts w to this shard's part.
func (o *Options) shardWorkload(w workload.Workload) (workload.Sharder, error) {
	if o.Shard == nil {
		return nil, nil
	}
	sh, ok := w.(workload.Sharder)
	if !ok {
		return nil, badInput("--shard: workload %s cannot split its clients over shards (ibench can)", w.Name())
	}
	if err := sh.Shard(o.Shard.Spec.Index, o.Shard.Spec.Count); err != nil {
		return nil, &BadInputError{Err: err}
	}
	// The barrier keys its rows by step name: a step's second pass would
	// count the first pass's arrivals and start without the other shards.
	seen := map[string]bool{}
	for _, s := range w.Steps() {
		if seen[s.Name] {
			return nil, badInput("--shard: step %s is listed twice in --steps; a sharded run meets at each step name once: list each step once, or run the repeat as a separate run", s.Name)
		}
		seen[s.Name] = true
	}
	return sh, nil
}

// record is run.json's shard; label is the variant's (its engine's name
// for a bare engine).
func (so *ShardOptions) record(label string, sh workload.Sharder, steps []workload.Step) *results.Shard {
	r := &results.Shard{Index: so.Spec.Index, Count: so.Spec.Count, RunID: so.runID(label)}
	for _, s := range steps {
		if sh.Once(s.Name) {
			r.OnceSteps = append(r.OnceSteps, s.Name)
		}
	}
	return r
}

// runID is the run's id for one variant: each variant of a run has its own
// barrier rows, also two variants of one engine on one server (a bare
// engine's label is its name, so its id is as before labels).
func (so *ShardOptions) runID(label string) string { return shard.RunID(so.RunID, label) }

// open joins the barrier on db's server for the variant labelled label.
func (so *ShardOptions) open(ctx context.Context, db model.DB, label string, rec *results.Shard) (*barrier, error) {
	sdb, flavor, err := shard.ForDB(db)
	if err != nil {
		return nil, &BadInputError{Err: err}
	}
	b, err := shard.Open(ctx, sdb, flavor, so.runID(label), so.Spec, so.Timeout)
	if err != nil {
		return nil, err
	}
	bar := &barrier{b: b, spec: so.Spec, once: map[string]bool{}}
	for _, s := range rec.OnceSteps {
		bar.once[s] = true
	}
	return bar, nil
}

// barrier is the runner's use of a shard.Barrier; a nil *barrier (not a
// sharded run) passes every wait at once.
type barrier struct {
	b    *shard.Barrier
	spec shard.Spec
	once map[string]bool
}

// barrierError marks an error of the barrier (not of the workload).
type barrierError struct{ err error }

func (e *barrierError) Error() string { return e.err.Error() }

// prepare runs the workload's Prepare on shard 0 first (it creates the
// tables), then on the others.
func (b *barrier) prepare(ctx context.Context, prepare func() error) error {
	if b == nil {
		return prepare()
	}
	if _, err := b.b.Wait(ctx, "~prepare"); err != nil {
		return &barrierError{err}
	}
	if b.spec.Index == 0 {
		if err := prepare(); err != nil {
			return err
		}
	}
	if _, err := b.b.Wait(ctx, "~prepared"); err != nil {
		return &barrierError{err}
	}
	if b.spec.Index != 0 {
		return prepare()
	}
	return nil
}

// wait meets the other shards before step and returns the agreed start on
// this host's clock (zero when not sharded).
func (b *barrier) wait(ctx context.Context, step string) (time.Time, error) {
	if b == nil {
		return time.Time{}, nil
	}
	return b.b.Wait(ctx, step)
}

// leaves reports whether this shard leaves step to shard 0.
func (b *barrier) leaves(step string) bool {
	return b != nil && b.spec.Index != 0 && b.once[step]
}

// close leaves the barrier; done says the run passed its last barrier.
func (b *barrier) close(done bool) {
	if b == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b.b.Close(ctx, done)
}

// onceSummary is the summary a shard other than 0 writes for a step shard
// 0 ran alone: complete, with no operations of its own.
func onceSummary(s workload.Step, o *Options, startAt time.Time) *results.Step {
	sum := results.Placeholder(s.Name, s.Desc(), o.ratePercentile(), o.stepInterval(s).Seconds(), startAt)
	sum.Unfinished, sum.Error, sum.Complete = false, "", true
	sum.Latency = map[string]measure.Latency{}
	sum.Ops = map[string]*results.OpSummary{}
	sum.Details = map[string]any{"shard": "run by shard 0 alone for every shard; the other shards waited"}
	return sum
}

// sleepUntil waits until t (or ctx ends).
func sleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}
