package runner

import (
	"context"
	"fmt"
	"time"

	"rumbench/internal/counterpoll"
	"rumbench/internal/diskfull"
	"rumbench/internal/figure"
	"rumbench/internal/measure"
	"rumbench/internal/model"
	"rumbench/internal/results"
	"rumbench/internal/steady"
	"rumbench/internal/workload"
)

// runStep runs one step; startAt, when set, is the start the shards of a
// sharded run agreed on: the step waits for it and its intervals start
// there.
func (r *engineRun) runStep(ctx context.Context, s workload.Step, startAt time.Time) (*results.Step, error) {
	o, name, bw, observers := r.o, r.name, r.bw, r.observers
	nominal := o.stepInterval(s)
	desc := s.Desc()
	live := newLivePrinter(o.Live, name, s.Name, r.ops, desc, nominal)
	timeout := o.OpTimeout
	if s.LongOps {
		timeout = 0
	}
	stepCtx, dog := newWatchdog(ctx, timeout)
	defer dog.stop()
	main, _ := r.ops.Lookup(s.MainOp)
	var series *steadySeries
	if o.Steady != nil && s.Steady {
		series = newSteadySeries(o.Steady.Metric, main, s.LogicalBytes)
	}
	for _, ob := range observers {
		if sw, ok := ob.(SizeWatcher); ok {
			sw.WatchSize(series != nil && o.Steady.Metric == steady.SizeGrowth)
		}
	}
	// loggedFrom is the workload's logical bytes inserted when the last
	// warm-up interval closed: where the sampler's measured totals start,
	// and so where write amplification's denominator must start too.
	var loggedFrom int64
	warmedUp := false
	if s.LogicalBytes != nil {
		loggedFrom = s.LogicalBytes()
	}
	var encoder results.IntervalEncoder
	// The engine's counters per interval, read on the clock's thread.
	poll := counterpoll.New(r.db, nominal)
	clock := measure.NewClock(nominal, r.ops, func(iv *measure.Interval) {
		dog.observe(iv)
		if iv.Warmup && s.LogicalBytes != nil {
			loggedFrom, warmedUp = s.LogicalBytes(), true
		}
		rec := encoder.Encode(s.Name, iv)
		for _, ob := range observers {
			if sys := ob.Interval(iv); sys != nil {
				if rec.System == nil {
					rec.System = map[string]any{}
				}
				for k, v := range sys {
					rec.System[k] = v
				}
			}
		}
		if series != nil {
			series.observe(iv, rec.System)
		}
		if poll != nil {
			rec.Internals, rec.InternalsSeconds = poll.Tick(context.WithoutCancel(ctx))
		}
		if err := bw.AppendInterval(rec); err != nil {
			// Measuring on without a place to keep the figures is
			// pointless: end the step (once) with the write's error.
			dog.fail(err)
		}
		// The stub interval between the last tick and the step's end is
		// logged but not printed when nothing happened in it.
		live.observe(iv)
		if iv.Seconds >= nominal.Seconds()/2 || len(rec.Ops) > 0 {
			live.print(iv, rec)
		}
	})
	env := &workload.Env{
		DB:      r.db,
		Clock:   clock,
		Details: map[string]any{},
		Logf: func(format string, args ...any) {
			fmt.Fprintf(o.Log, "[%s %s] %s\n", name, s.Name, fmt.Sprintf(format, args...))
		},
	}
	clock.SetWarmup(time.Duration(s.Warmup * float64(time.Second)))
	if series != nil {
		clock.SetSteady(steady.NewTracker(*o.Steady), series.value)
	}
	var setupErr error
	if s.Setup != nil {
		setupErr = s.Setup(stepCtx, env)
	}
	// The engine's own counters are read outside the measured window, so
	// the reads cost the step nothing: in a sharded run before the agreed
	// start (the step's clock starts there, so a read after it would come
	// out of a time-bounded step's length); no shard does the step's work
	// before it.
	internals0, haveInternals := r.readInternals(ctx)
	if !startAt.IsZero() {
		if err := sleepUntil(ctx, startAt); err != nil {
			sum := results.Placeholder(s.Name, desc, o.ratePercentile(), nominal.Seconds(), time.Now())
			sum.Unfinished, sum.Error = false, "interrupted"
			return sum, err
		}
	}
	bundleBefore := bw.BytesWritten()
	if poll != nil {
		poll.Start(ctx)
	}
	for _, ob := range observers {
		ob.StepStart(s.Name, desc)
	}
	rr, _ := r.db.(model.RetryReporter)
	var retries0 int64
	if rr != nil {
		retries0 = rr.Retries()
	}
	dog.start()
	if startAt.IsZero() {
		clock.Start()
	} else {
		clock.StartFrom(startAt)
	}
	err := setupErr
	if err == nil {
		err = s.Run(stepCtx, env)
	}
	clock.Stop()
	if terr := dog.fired(stepCtx); terr != nil && ctx.Err() == nil {
		// The workers saw a cancelled context; the cause is the hang or
		// the bundle write.
		err = terr
	}
	if err != nil && ctx.Err() == nil {
		err = diskfull.Explain(err, "data dir", r.dataDir)
	}
	for _, ob := range observers {
		ob.StepStop(clock, bw.BytesWritten()-bundleBefore)
	}
	if poll != nil && poll.Off() != "" {
		fmt.Fprintf(o.Log, "[%s %s] %s\n", name, s.Name, poll.Off())
	}
	var internals1 model.Internals
	if haveInternals {
		internals1, haveInternals = r.readInternals(context.WithoutCancel(ctx))
	}

	if _, reported := env.Details[results.DetailLogicalBytesInserted]; reported && warmedUp {
		// The warm-up's rows are left out of every figure, write
		// amplification's logical bytes included.
		env.Details[results.DetailLogicalBytesInserted] = s.LogicalBytes() - loggedFrom
	}
	sum := r.summarize(ctx, s.Name, desc, clock, env, err)
	if sum.SteadyState != nil && series != nil {
		sum.SteadyState.Source = series.source
	}
	if rr != nil {
		if sum.Details == nil {
			sum.Details = map[string]any{}
		}
		sum.Details[results.DetailEngineRetries] = rr.Retries() - retries0
	}
	// Engine reports use a fresh context so an interrupted step still gets
	// them; after a hang they get no longer than the op timeout.
	reportTimeout := 30 * time.Second
	if _, hung := err.(*OpTimeoutError); hung && o.OpTimeout < reportTimeout {
		reportTimeout = o.OpTimeout
	}
	ectx, cancel := context.WithTimeout(context.Background(), reportTimeout)
	defer cancel()
	r.engineReports(ectx, sum)
	for _, ob := range observers {
		ob.StepEnd(sum, clock)
	}
	if haveInternals && sum.Metrics != nil {
		sum.Metrics.SetInternals(sum, internals0, internals1)
	}
	estimateClientCPU(ectx, r.w, r.db.Info(), sum)
	return sum, err
}

// summarize is the step's summary from its stopped clock, its outcome (err)
// and what its workload reported (details, paced operations' targets); a
// step that paced operations ends with a line per target on whether it was
// kept.
func (r *engineRun) summarize(ctx context.Context, step string, desc results.StepDesc, clock *measure.Clock, env *workload.Env, err error) *results.Step {
	o := r.o
	sum := results.Summarize(step, desc, clock, o.ratePercentile())
	sum.Complete = err == nil
	sum.SteadyState = clock.Steady()
	if err != nil {
		sum.Error = err.Error()
		if ctx.Err() != nil {
			sum.Error = "interrupted"
		}
	}
	if len(env.Details) > 0 {
		sum.Details = env.Details
		sum.PromoteDetails()
	}
	sum.JudgeTargets(env.Targets, clock.Ops())
	if o.Live != nil && sum.Complete {
		// The step's end line per paced operation: whether it kept its
		// target (≥ 95%; the insert benchmark's writers' SLA).
		for _, t := range figure.TargetsOf(sum) {
			fmt.Fprintf(o.Live, "%-8s %-6s %s %s\n", r.name, step, t.Label(), t.Line())
		}
	}
	return sum
}

// engineReports adds what the engine says at the step's end: its live size
// (-1 unknown) and its statistics.
func (r *engineRun) engineReports(ctx context.Context, sum *results.Step) {
	sum.EngineSize = -1
	if n, err := r.db.Size(ctx); err == nil {
		sum.EngineSize = n
	}
	if sr, ok := r.db.(model.StatsReporter); ok {
		if st, err := sr.Stats(ctx); err == nil {
			sum.EngineStats = st
		}
	}
}

// readInternals reads the engine's own counters, when it has them; a failed
// read is said once in the log and leaves the step without them.
func (r *engineRun) readInternals(ctx context.Context) (model.Internals, bool) {
	ir, ok := r.db.(model.InternalsReporter)
	if !ok {
		return model.Internals{}, false
	}
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	in, err := ir.Internals(rctx)
	if err != nil {
		if !r.internalsFailed {
			r.internalsFailed = true
			fmt.Fprintf(r.o.Log, "[%s] the engine's own counters could not be read (steps go without them): %v\n", r.name, err)
		}
		return model.Internals{}, false
	}
	return in, true
}
