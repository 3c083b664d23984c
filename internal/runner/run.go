package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"rumbench/internal/engine"
	"rumbench/internal/hostinfo"
	"rumbench/internal/measure"
	"rumbench/internal/model"
	"rumbench/internal/results"
	"rumbench/internal/version"
	"rumbench/internal/workload"
)

// Run runs the workload on each engine in turn. It returns one result per
// engine that started; an interrupted run returns ErrInterrupted after saving
// what it gathered.
func Run(ctx context.Context, o Options) ([]EngineResult, error) {
	if err := Check(&o); err != nil {
		return nil, err
	}
	if o.Live == nil {
		o.Live = io.Discard
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	var out []EngineResult
	for i, v := range o.Variants {
		name := v.Engine
		if i > 0 {
			if err := Cooldown(ctx, o.Cooldown, o.Log); err != nil {
				return out, ErrInterrupted
			}
		}
		label := v.Label
		dir := filepath.Join(o.Out, label)
		handled, err := false, error(nil)
		if o.Isolate != nil {
			handled, err = o.Isolate(ctx, label, o.givenDataDir(label))
		}
		if !handled {
			err = runEngine(ctx, &o, v, dir)
		}
		out = append(out, EngineResult{Engine: label, Dir: dir, Err: err})
		if ctx.Err() != nil {
			return out, ErrInterrupted
		}
		if err != nil {
			var bad *BadInputError
			if errors.As(err, &bad) {
				return out, err
			}
			// Said now only when other engines follow: the last
			// one's failure is the error Run returns, printed once.
			if i < len(o.Variants)-1 {
				fmt.Fprintf(o.Log, "rumbench: %s: %v\n", name, err)
			}
		}
	}
	// The last failure: when it is the last engine's, it was not logged.
	for i := len(out) - 1; i >= 0; i-- {
		if r := out[i]; r.Err != nil {
			return out, fmt.Errorf("engine %s failed: %w", r.Engine, r.Err)
		}
	}
	return out, nil
}

// engineRun is one engine's run once it is open and its run.json written:
// what its steps run with.
type engineRun struct {
	o    *Options
	name string
	// dataDir is the directory whose filesystem holds the engine's data
	// (dataDirOf).
	dataDir   string
	w         workload.Workload
	db        model.DB
	bw        *results.Writer
	observers []Observer
	ops       measure.Ops
	bar       *barrier
	// internalsFailed: a read of the engine's own counters failed once
	// (said once, not per step).
	internalsFailed bool
}

// runEngine runs the workload on one engine: it opens what the run needs
// (data dir, managed server, engine, bundle, observers), records run.json,
// prepares the workload and runs its steps, and closes everything in the
// reverse order, also when it fails.
func runEngine(ctx context.Context, o *Options, v model.Variant, bundleDir string) (err error) {
	name := v.Engine
	w, err := o.NewWorkload()
	if err != nil {
		return &BadInputError{Err: err}
	}
	if err := checkSteady(o.Steady, w.Name(), w.Steps()); err != nil {
		return err
	}
	sharder, err := o.shardWorkload(w)
	if err != nil {
		return err
	}
	dataDir, cleanup, err := o.dataDirFor(v.Label)
	if err != nil {
		return err
	}
	defer cleanup()
	srv, err := startServer(ctx, o, v.Label, dataDir)
	if err != nil {
		return err
	}
	dsn := o.DSN
	// stopServer and closeDB run once: at the run's tail when every step
	// ended, else deferred.
	stopServer := func() error { return nil }
	if srv != nil {
		stopServer = sync.OnceValue(func() error {
			if serr := srv.Stop(); serr != nil {
				return fmt.Errorf("stop the managed server: %w", serr)
			}
			return nil
		})
		// Deferred before the engine's Close, so it runs after it.
		defer func() {
			if serr := stopServer(); serr != nil && err == nil {
				err = serr
			}
		}()
		dsn = srv.DSN
	}
	d, _ := engine.Lookup(name)
	db, err := openEngine(ctx, o, v, d, dataDir, dsn)
	if err != nil {
		return err
	}
	closeDB := sync.OnceValue(func() error {
		if cerr := db.Close(); cerr != nil {
			return fmt.Errorf("close engine: %w", cerr)
		}
		return nil
	})
	defer func() {
		if cerr := closeDB(); cerr != nil && err == nil {
			err = cerr
		}
	}()

	bw, err := results.Create(bundleDir)
	if err != nil {
		return &BadInputError{Err: err}
	}
	defer bw.Close()

	observers, err := startObservers(ctx, o, db, dataDir, bundleDir)
	defer closeObservers(observers)
	if err != nil {
		return err
	}

	steps := w.Steps()
	ops := w.Ops()
	if err := checkSteps(w.Name(), ops, steps); err != nil {
		return err
	}
	run := newRunRecord(o, w, db, srv, ops, steps)
	if v.Label != v.Engine {
		run.Label = v.Label
	}
	cgroup := memoryCgroupOf(o, srv)
	if cgroup != nil {
		run.MemoryLimit = cgroup()
	}
	var bar *barrier
	// closeBar removes the run's barrier rows (done: the last barrier
	// passed) once, before the engine closes at the run's tail.
	closeBar := func(bool) {}
	if o.Shard != nil {
		run.Shard = o.Shard.record(v.Label, sharder, steps)
		if bar, err = o.Shard.open(ctx, db, v.Label, run.Shard); err != nil {
			return err
		}
		closed := false
		closeBar = func(done bool) {
			if !closed {
				closed = true
				bar.close(done)
			}
		}
		defer func() { closeBar(err == nil) }()
	}
	if err := readMemory(ctx, o, db, d.Kind() == model.Embedded || srv != nil, run); err != nil {
		return err
	}
	readConfigDiff(ctx, o, db, run)
	if run.Engine.Note != "" {
		run.Notes = append(run.Notes, run.Engine.Note)
		fmt.Fprintf(o.Log, "NOTE: %s\n", run.Engine.Note)
	}
	if err := bw.WriteRun(run); err != nil {
		return err
	}
	// finish rewrites run.json at the end: when, the memory used, and
	// whether every step finished.
	finish := func(complete bool) error {
		t := time.Now().UTC()
		run.FinishedAt = &t
		if cgroup != nil {
			run.MemoryLimit = cgroup()
		}
		run.Complete = complete
		return bw.WriteRun(run)
	}

	shown := v.Label
	if v.Label != v.Engine {
		shown += " = " + name
	}
	fmt.Fprintf(o.Log, "== %s (%s, %s %s) data dir %s\n", shown, run.Engine.Family, run.Engine.Kind, run.Engine.Version, dataDir)
	if err := bar.prepare(ctx, func() error { return w.Prepare(ctx, db) }); err != nil {
		finish(false)
		return prepareFailure(ctx, w.Name(), err)
	}
	r := &engineRun{o: o, name: v.Label, dataDir: dataDirOf(db, dataDir, srv != nil), w: w, db: db, bw: bw, observers: observers, ops: ops, bar: bar}
	if err := r.runSteps(ctx, steps); err != nil {
		finish(false)
		return err
	}
	if _, err := bar.wait(ctx, "~end"); err != nil {
		finish(false)
		return err
	}
	if err := finish(true); err != nil {
		return err
	}
	if srv != nil && srv.Shared {
		settle(ctx, o, db, v.Label)
	}
	closeBar(true)
	tail, err := measureTail(observers, func() error {
		if err := closeDB(); err != nil {
			return err
		}
		return stopServer()
	})
	if tail != nil {
		run.Tail = tail
		if werr := bw.WriteRun(run); werr != nil && err == nil {
			err = werr
		}
	}
	return err
}

// measureTail closes the engine (and stops a managed server) between the
// observers' tail marks: what that costs (a final flush or compaction, a
// server's shutdown checkpoint) is the run's tail, recorded in run.json
// rather than charged to no one. The first observer that measures tails
// gives the record.
func measureTail(observers []Observer, close func() error) (*results.Tail, error) {
	var tos []TailObserver
	for _, ob := range observers {
		if to, ok := ob.(TailObserver); ok {
			tos = append(tos, to)
			to.TailStart()
		}
	}
	err := close()
	var tail *results.Tail
	for _, to := range tos {
		if t := to.TailEnd(); tail == nil {
			tail = t
		}
	}
	return tail, err
}

// settle waits for the background work of a run on a shared server
// (Server.Shared) once its bundle is complete, so the next run on the
// server does not pay for it; a failure is only noted.
func settle(ctx context.Context, o *Options, db model.DB, label string) {
	q, ok := db.(model.Quiescer)
	if !ok {
		return
	}
	t0 := time.Now()
	bounded, cancel := context.WithTimeout(ctx, settleMax)
	defer cancel()
	waits, err := q.Quiesce(bounded)
	if err != nil && ctx.Err() == nil {
		fmt.Fprintf(o.Log, "NOTE: %s: the shared server's background work not waited for: %v\n", label, err)
		return
	}
	var parts []string
	for _, w := range waits {
		state := w.After
		if !w.Reached {
			state = "not reached: " + w.After
		}
		parts = append(parts, w.What+": "+state)
	}
	fmt.Fprintf(o.Log, "%s: waited %.1fs for the shared server's background work before its next run (%s)\n", label, time.Since(t0).Seconds(), strings.Join(parts, "; "))
}

// settleMax bounds settle's wait: background work that outlasts it is the
// next run's, as on any server in use.
const settleMax = 10 * time.Minute

// startServer starts a private server for the variant labelled label when
// the run manages one (--managed): nil when it does not.
func startServer(ctx context.Context, o *Options, label, dataDir string) (*Server, error) {
	if o.StartServer == nil {
		return nil, nil
	}
	return o.StartServer(ctx, label, dataDir)
}

// memoryCgroupOf reports the memory cgroup the engine runs in: its managed
// server's, else this process's; nil when there is none to report.
func memoryCgroupOf(o *Options, srv *Server) func() *results.MemoryCgroup {
	if srv != nil && srv.MemoryCgroup != nil {
		return srv.MemoryCgroup
	}
	return o.MemoryCgroup
}

// openEngine opens variant v's engine (driver d) on its data dir (or
// server, at dsn) with the settings that apply to it.
func openEngine(ctx context.Context, o *Options, v model.Variant, d model.Driver, dataDir, dsn string) (model.DB, error) {
	db, err := engine.Open(ctx, v.Engine, model.Config{
		DataDir:  dataDir,
		DSN:      dsn,
		Database: o.Database,
		Options:  v.Options,
	})
	if err != nil {
		// Another engine's data, an unreachable server, refused
		// credentials: the user's to fix (exit 2).
		if errors.Is(err, engine.ErrForeignData) || errors.Is(err, model.ErrSetup) {
			return nil, &BadInputError{Err: err}
		}
		return nil, err
	}
	return db, nil
}

// startObservers starts the run's observers on the opened engine. It
// returns those it started also when one fails, for closeObservers.
func startObservers(ctx context.Context, o *Options, db model.DB, dataDir, bundleDir string) ([]Observer, error) {
	var observers []Observer
	for _, f := range o.Observers {
		ob, err := f(ctx, db, dataDir, bundleDir)
		if err != nil {
			return observers, fmt.Errorf("start observer: %w", err)
		}
		observers = append(observers, ob)
	}
	return observers, nil
}

// closeObservers closes observers in the reverse order of their start.
func closeObservers(observers []Observer) {
	for i := len(observers) - 1; i >= 0; i-- {
		observers[i].Close()
	}
}

// checkSteps checks the workload's operations and that each step's main
// operation is one of them.
func checkSteps(workloadName string, ops measure.Ops, steps []workload.Step) error {
	if err := ops.Validate(); err != nil {
		return fmt.Errorf("workload %s: %w", workloadName, err)
	}
	for _, st := range steps {
		if _, ok := ops.Lookup(st.MainOp); !ok {
			return fmt.Errorf("workload %s: step %s: main operation %q is not among its operations", workloadName, st.Name, st.MainOp)
		}
	}
	return nil
}

// newRunRecord is run.json as the engine starts: what runs where, with
// which settings (a managed server's included).
func newRunRecord(o *Options, w workload.Workload, db model.DB, srv *Server, ops measure.Ops, steps []workload.Step) *results.Run {
	run := &results.Run{
		SchemaVersion:    results.SchemaVersion,
		Tool:             results.Tool{Name: "rumbench", Version: version.Version, Commit: version.Revision(), GoVersion: runtime.Version()},
		Workload:         w.Name(),
		Seed:             o.Seed,
		Config:           o.Config,
		Host:             hostinfo.Read(),
		Engine:           db.Info(),
		MeasuredSettings: engine.MeasuredSettings(db.Info()),
		Ops:              ops,
		Sizes:            o.Sizes,
		Tables:           w.Tables(),
		StartedAt:        time.Now().UTC(),
		DropCaches:       o.DropCaches != nil,
	}
	for _, s := range steps {
		run.Steps = append(run.Steps, s.Name)
	}
	if srv != nil {
		if run.Engine.Settings == nil {
			run.Engine.Settings = map[string]string{}
		}
		for k, v := range srv.Settings {
			run.Engine.Settings[k] = v
		}
	}
	return run
}

// prepareFailure is the error of a failed prepare: the barrier's own, an
// interruption, bad input (data the workload cannot run on), or the
// workload's error.
func prepareFailure(ctx context.Context, workloadName string, err error) error {
	var be *barrierError
	if errors.As(err, &be) {
		return be.err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, workload.ErrNotPrepared) {
		return &BadInputError{Err: err}
	}
	return fmt.Errorf("prepare %s: %w", workloadName, err)
}

// runSteps runs the workload's steps in order, each summary replacing the
// placeholder written when it starts. In a sharded run every shard starts a
// step at one time; the other shards leave a step shard 0 does alone to it.
func (r *engineRun) runSteps(ctx context.Context, steps []workload.Step) error {
	o, bw := r.o, r.bw
	for i, s := range steps {
		if i > 0 && o.StepPause > 0 {
			if err := sleepUntil(ctx, time.Now().Add(o.StepPause)); err != nil {
				return err
			}
		}
		if o.DropCaches != nil {
			if err := o.DropCaches(); err != nil {
				return err
			}
		}
		startAt, err := r.bar.wait(ctx, s.Name)
		if err != nil {
			sum := results.Placeholder(s.Name, s.Desc(), o.ratePercentile(), o.stepInterval(s).Seconds(), time.Now())
			sum.Unfinished, sum.Error = false, err.Error()
			if ctx.Err() != nil {
				sum.Error = "interrupted"
			}
			bw.WriteStep(sum)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("step %s: %w", s.Name, err)
		}
		if r.bar.leaves(s.Name) {
			if err := bw.WriteStep(onceSummary(s, o, startAt)); err != nil {
				return fmt.Errorf("step %s: %w", s.Name, err)
			}
			continue
		}
		// A placeholder marks the step unfinished until its summary
		// replaces it, so a bundle left by a killed rumbench says so.
		if err := bw.WriteStep(results.Placeholder(s.Name, s.Desc(), o.ratePercentile(), o.stepInterval(s).Seconds(), time.Now())); err != nil {
			return fmt.Errorf("step %s: %w", s.Name, err)
		}
		sum, stepErr := r.runStep(ctx, s, startAt)
		sum.CachesDropped = o.DropCaches != nil
		if err := bw.WriteStep(sum); err != nil {
			return fmt.Errorf("step %s: %w", s.Name, err)
		}
		if stepErr != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("step %s: %w", s.Name, stepErr)
		}
	}
	return nil
}

// readMemory records the engine's effective cache and write buffers in
// run.Engine.Memory and judges them against the run's budget: a server
// rumbench does not manage that runs with another cache gets a warning line
// and a caveat in run.json's notes. managed says whether rumbench set the
// engine's cache.
func readMemory(ctx context.Context, o *Options, db model.DB, managed bool, run *results.Run) error {
	mr, ok := db.(model.MemoryReporter)
	if !ok {
		return nil
	}
	m, err := mr.Memory(ctx)
	if err != nil {
		return fmt.Errorf("read back the engine's cache size: %w", err)
	}
	if o.Cache != nil {
		if warn := o.Cache.Judge(run.Engine.Name, &m, managed); warn != "" {
			fmt.Fprintln(o.Log, warn)
		}
		if m.Caveat != "" {
			run.Notes = append(run.Notes, "memory: "+m.Caveat)
		}
	}
	run.Engine.Memory = &m
	return nil
}

// dataDirOf is the directory whose filesystem holds db's data: the data
// dir, or "" for a server engine not managed by rumbench (its disk is the
// server's).
func dataDirOf(db model.DB, dataDir string, managed bool) string {
	if db.Info().Kind == model.Server && !managed {
		return ""
	}
	return dataDir
}

// Cooldown pauses for d between two runs (--cooldown), saying so on w; it
// returns ctx's error when interrupted.
func Cooldown(ctx context.Context, d time.Duration, w io.Writer) error {
	if d <= 0 {
		return nil
	}
	fmt.Fprintf(w, "rumbench: cooling down for %s before the next run (--cooldown)\n", d)
	return sleepUntil(ctx, time.Now().Add(d))
}
