// Package runner runs a workload on each engine in turn: it opens the engine,
// drives the steps under an interval clock, and writes the run bundle.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"rumbench/internal/diskfull"
	"rumbench/internal/engine"
	"rumbench/internal/hostinfo"
	"rumbench/internal/measure"
	"rumbench/internal/membudget"
	"rumbench/internal/model"
	"rumbench/internal/results"
	"rumbench/internal/steady"
	"rumbench/internal/version"
	"rumbench/internal/workload"
)

// Observer watches steps alongside the clock, e.g. the system metrics
// sampler. Its methods are called from the runner and the clock goroutine,
// never concurrently with each other for one step.
type Observer interface {
	// StepStart is called just before a step's clock starts.
	StepStart(step string, desc results.StepDesc)
	// Interval is called for each closed interval; what it returns is stored
	// as the interval record's system deltas.
	Interval(iv *measure.Interval) map[string]any
	// StepStop is called as soon as the step's clock stopped, before the
	// runner asks the engine for its size and statistics, so the work of
	// those reports is not charged to the step. bundleBytes is what the
	// results bundle (rumbench's own bookkeeping) wrote during the step.
	StepStop(c *measure.Clock, bundleBytes int64)
	// StepEnd is called once the summary is complete, to add to it.
	StepEnd(s *results.Step, c *measure.Clock)
	// Close releases resources once the engine is done.
	Close() error
}

// ObserverFactory creates an observer for one opened engine whose data is
// in dataDir and whose bundle is written to bundleDir.
type ObserverFactory func(ctx context.Context, db model.DB, dataDir, bundleDir string) (Observer, error)

// Options configure a run.
type Options struct {
	Engines []string
	// Out is the results directory; each engine writes Out/<engine>.
	Out string
	// DataDir is the data directory; "" means a temporary one per engine,
	// removed afterwards. With several engines each uses DataDir/<engine>.
	DataDir string
	// EngineOpts are --engine-opt settings: "key" applies to every engine
	// that has the setting, "engine.key" to that engine only.
	EngineOpts map[string]string
	DSN        string
	Database   string
	Interval   time.Duration
	Seed       int64
	// Config is recorded in run.json as the full configuration.
	Config any
	// Sizes are the workload settings that decide how much work a run
	// does (run.json sizes).
	Sizes map[string]any
	// RatePercentile is the percentile of per-interval rates step
	// summaries report (0: DefaultRatePercentile).
	RatePercentile float64
	// OpTimeout ends a step in which no operation finished for this long
	// (the engine stopped answering); 0 never does. Steps of long
	// operations (workload.Step.LongOps) are exempt.
	OpTimeout time.Duration
	// NewWorkload returns a fresh workload for each engine.
	NewWorkload func() (workload.Workload, error)
	Observers   []ObserverFactory
	// StartServer, when set, may start a private server for an engine
	// (--managed) before it opens; see ServerStarter.
	StartServer ServerStarter
	// Isolate, when set, may run one engine elsewhere (a child process in a
	// memory cgroup, --memory-limit) instead of in this process: it returns
	// false for an engine it leaves to the runner. dataDir is the engine's
	// data dir, "" for a temporary one. The child writes Out/<engine> as the
	// runner would.
	Isolate func(ctx context.Context, engine, dataDir string) (bool, error)
	// MemoryCgroup, when set, reports the memory cgroup this process runs
	// in; it is recorded in run.json at the start and end of each engine.
	MemoryCgroup func() *results.MemoryCgroup
	// Cache, when set, is the run's one cache size for every engine
	// (--cache-size): each engine's effective cache is read back after it
	// opens (model.MemoryReporter), recorded as engine.memory and judged
	// against it.
	Cache *membudget.Budget
	// DropCaches, when set, runs before each step (--drop-caches); steps
	// record that it did.
	DropCaches func() error
	// Steady, when set, makes every step that supports it (workload.Step.
	// Steady) warm up until this steady-state rule holds over its main
	// operation's per-interval rate (--steady-state).
	Steady *steady.Spec
	// Cooldown is a pause before every engine's run after the first
	// (--cooldown): hot devices and CPUs are a named source of variance
	// between runs.
	Cooldown time.Duration
	// Shard, when set, makes this process one shard of a sharded run
	// (--shard): see sharded.go.
	Shard *ShardOptions
	// Live receives one line per interval; Log receives progress notes.
	Live io.Writer
	Log  io.Writer
}

// ServerStarter starts a private server for engine in its data dir, or
// returns nil when the engine does not run on one. The engine then connects
// to Server.DSN instead of Options.DSN; Server.Settings are added to the
// engine settings in run.json; Server.Stop runs after the engine is closed,
// also when the run fails or is interrupted.
type ServerStarter func(ctx context.Context, engine, dataDir string) (*Server, error)

// Server is a private server started by a ServerStarter.
type Server struct {
	DSN      string
	Settings map[string]string
	Stop     func() error
	// MemoryCgroup, when set, reports the memory cgroup the server runs in
	// (recorded in run.json).
	MemoryCgroup func() *results.MemoryCgroup
}

// EngineResult is one engine's outcome.
type EngineResult struct {
	Engine string
	Dir    string
	Err    error
}

// ErrInterrupted is returned when the run was cancelled (Ctrl-C).
var ErrInterrupted = errors.New("interrupted")

// BadInputError marks errors caused by the user's input (exit code 2).
type BadInputError struct{ Err error }

func (e *BadInputError) Error() string { return e.Err.Error() }
func (e *BadInputError) Unwrap() error { return e.Err }

func badInput(format string, args ...any) error {
	return &BadInputError{Err: fmt.Errorf(format, args...)}
}

// Check validates options that can be checked before anything runs:
// engines exist, settings are known, and the output directory is writable.
func Check(o *Options) error {
	if err := CheckEngines(o); err != nil {
		return err
	}
	if err := checkWritable(o.Out); err != nil {
		return err
	}
	for _, name := range o.Engines {
		if _, err := os.Stat(filepath.Join(o.Out, name, results.RunFile)); err == nil {
			return badInput("%s already holds results for %s: choose another --out (nothing was overwritten)", o.Out, name)
		}
	}
	return nil
}

// CheckEngines validates the engines and their settings.
func CheckEngines(o *Options) error {
	if len(o.Engines) == 0 {
		return badInput("no engine given: use --engine with one of %s", strings.Join(engine.Names(), ", "))
	}
	if err := o.checkShard(); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, name := range o.Engines {
		if seen[name] {
			return badInput("engine %q is listed twice in --engine", name)
		}
		seen[name] = true
		d, err := engine.Lookup(name)
		if err != nil {
			return &BadInputError{Err: err}
		}
		if err := d.Available(); err != nil {
			return badInput("engine %s is not available here: %v", name, err)
		}
		cfg := model.Config{DSN: o.DSN, Database: o.Database, Options: optionsFor(d, o.EngineOpts)}
		if _, err := engine.CheckConfig(d, cfg); err != nil {
			return &BadInputError{Err: err}
		}
	}
	return checkUnscopedOptions(o)
}

// OptionsFor picks the --engine-opt settings that apply to the named engine
// (its scoped ones, unscoped, and the plain keys it knows); none for an
// unknown engine.
func OptionsFor(name string, all map[string]string) map[string]string {
	d, err := engine.Lookup(name)
	if err != nil {
		return map[string]string{}
	}
	return optionsFor(d, all)
}

// optionsFor picks the settings that apply to driver d.
func optionsFor(d model.Driver, all map[string]string) map[string]string {
	known := map[string]bool{}
	for _, opt := range d.Options() {
		known[opt.Key] = true
	}
	out := map[string]string{}
	for k, v := range all {
		if eng, key, scoped := strings.Cut(k, "."); scoped {
			if eng == d.Name() {
				out[key] = v
			}
			continue
		}
		if known[k] {
			out[k] = v
		}
	}
	return out
}

// checkUnscopedOptions rejects a plain key that no selected engine knows, and
// a scoped key for an engine that is not selected.
func checkUnscopedOptions(o *Options) error {
	keys := make([]string, 0, len(o.EngineOpts))
	for k := range o.EngineOpts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if eng, key, scoped := strings.Cut(k, "."); scoped {
			found := false
			for _, e := range o.Engines {
				found = found || e == eng
			}
			if !found {
				return badInput("--engine-opt %s=...: engine %q is not in --engine", k, eng)
			}
			_ = key
			continue
		}
		used := false
		var all []string
		for _, name := range o.Engines {
			d, _ := engine.Lookup(name)
			for _, opt := range d.Options() {
				all = append(all, name+"."+opt.Key)
				used = used || opt.Key == k
			}
		}
		if !used {
			if len(all) == 0 {
				return badInput("unknown --engine-opt %q: the selected engines take no settings", k)
			}
			return badInput("unknown --engine-opt %q: the selected engines take %s", k, strings.Join(all, ", "))
		}
	}
	return nil
}

// checkWritable checks that dir, or the nearest existing directory above it,
// is a writable directory. It creates nothing (the bundle writer creates the
// directory when the first engine's results are written), so a run refused
// for bad input leaves no empty --out behind.
func checkWritable(dir string) error {
	if dir == "" {
		return badInput("--out is empty: give a results directory")
	}
	probe := filepath.Clean(dir)
	for {
		st, err := os.Stat(probe)
		if err == nil {
			if !st.IsDir() {
				return badInput("cannot create --out %s: %s is not a directory (choose a writable directory)", dir, probe)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return badInput("cannot create --out %s: %v (choose a writable directory)", dir, err)
		}
		parent := filepath.Dir(probe)
		if parent == probe {
			return badInput("cannot create --out %s: no existing parent directory (choose a writable directory)", dir)
		}
		probe = parent
	}
	f, err := os.CreateTemp(probe, ".rumbench-write-check*")
	if err != nil {
		return badInput("--out %s is not writable: %v (choose a writable directory)", dir, errors.Unwrap(err))
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

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
	for i, name := range o.Engines {
		if i > 0 {
			if err := Cooldown(ctx, o.Cooldown, o.Log); err != nil {
				return out, ErrInterrupted
			}
		}
		dir := filepath.Join(o.Out, name)
		handled, err := false, error(nil)
		if o.Isolate != nil {
			handled, err = o.Isolate(ctx, name, o.givenDataDir(name))
		}
		if !handled {
			err = runEngine(ctx, &o, name, dir)
		}
		out = append(out, EngineResult{Engine: name, Dir: dir, Err: err})
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
			if i < len(o.Engines)-1 {
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

// givenDataDir is the engine's data dir when --data-dir was given, else "".
func (o *Options) givenDataDir(name string) string {
	if o.DataDir == "" || len(o.Engines) == 1 {
		return o.DataDir
	}
	return filepath.Join(o.DataDir, name)
}

func (o *Options) dataDirFor(name string) (dir string, cleanup func(), err error) {
	if o.DataDir == "" {
		d, err := os.MkdirTemp("", "rumbench-"+name+"-")
		if err != nil {
			return "", nil, fmt.Errorf("create temporary data dir: %w", err)
		}
		return d, func() { os.RemoveAll(d) }, nil
	}
	if len(o.Engines) > 1 {
		return filepath.Join(o.DataDir, name), func() {}, nil
	}
	return o.DataDir, func() {}, nil
}

func runEngine(ctx context.Context, o *Options, name, bundleDir string) (err error) {
	w, err := o.NewWorkload()
	if err != nil {
		return &BadInputError{Err: err}
	}
	sharder, err := o.shardWorkload(w)
	if err != nil {
		return err
	}
	dataDir, cleanup, err := o.dataDirFor(name)
	if err != nil {
		return err
	}
	defer cleanup()
	dsn, srv := o.DSN, (*Server)(nil)
	if o.StartServer != nil {
		if srv, err = o.StartServer(ctx, name, dataDir); err != nil {
			return err
		}
		if srv != nil {
			// Deferred before the engine's Close, so it runs after it.
			defer func() {
				if serr := srv.Stop(); serr != nil && err == nil {
					err = fmt.Errorf("stop the managed server: %w", serr)
				}
			}()
			dsn = srv.DSN
		}
	}
	d, _ := engine.Lookup(name)
	db, err := engine.Open(ctx, name, model.Config{
		DataDir:  dataDir,
		DSN:      dsn,
		Database: o.Database,
		Options:  optionsFor(d, o.EngineOpts),
	})
	if err != nil {
		// Another engine's data, an unreachable server, refused
		// credentials: the user's to fix (exit 2).
		if errors.Is(err, engine.ErrForeignData) || errors.Is(err, model.ErrSetup) {
			return &BadInputError{Err: err}
		}
		return err
	}
	defer func() {
		if cerr := db.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close engine: %w", cerr)
		}
	}()

	bw, err := results.Create(bundleDir)
	if err != nil {
		return &BadInputError{Err: err}
	}
	defer bw.Close()

	var observers []Observer
	for _, f := range o.Observers {
		ob, err := f(ctx, db, dataDir, bundleDir)
		if err != nil {
			return fmt.Errorf("start observer: %w", err)
		}
		observers = append(observers, ob)
		defer ob.Close()
	}

	steps := w.Steps()
	ops := w.Ops()
	if err := ops.Validate(); err != nil {
		return fmt.Errorf("workload %s: %w", w.Name(), err)
	}
	for _, st := range steps {
		if _, ok := ops.Lookup(st.MainOp); !ok {
			return fmt.Errorf("workload %s: step %s: main operation %q is not among its operations", w.Name(), st.Name, st.MainOp)
		}
	}
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
	cgroup := o.MemoryCgroup
	if srv != nil && srv.MemoryCgroup != nil {
		cgroup = srv.MemoryCgroup
	}
	if cgroup != nil {
		run.MemoryLimit = cgroup()
	}
	run.DropCaches = o.DropCaches != nil
	var bar *barrier
	if o.Shard != nil {
		run.Shard = o.Shard.record(name, sharder, steps)
		if bar, err = o.Shard.open(ctx, db, name, run.Shard); err != nil {
			return err
		}
		// The last barrier passed: the run's barrier rows can go.
		defer func() { bar.close(err == nil) }()
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
	finish := func(complete bool) error {
		t := time.Now().UTC()
		run.FinishedAt = &t
		if cgroup != nil {
			run.MemoryLimit = cgroup()
		}
		run.Complete = complete
		return bw.WriteRun(run)
	}

	fmt.Fprintf(o.Log, "== %s (%s, %s %s) data dir %s\n", name, run.Engine.Family, run.Engine.Kind, run.Engine.Version, dataDir)
	if err := bar.prepare(ctx, func() error { return w.Prepare(ctx, db) }); err != nil {
		var be *barrierError
		if errors.As(err, &be) {
			finish(false)
			return be.err
		}
		finish(false)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.Is(err, workload.ErrNotPrepared) {
			return &BadInputError{Err: err}
		}
		return fmt.Errorf("prepare %s: %w", w.Name(), err)
	}
	for _, s := range steps {
		if o.DropCaches != nil {
			if err := o.DropCaches(); err != nil {
				finish(false)
				return err
			}
		}
		// In a sharded run every shard starts the step at one time; the
		// other shards leave a step shard 0 does alone to it.
		startAt, err := bar.wait(ctx, s.Name)
		if err != nil {
			sum := results.Placeholder(s.Name, s.Desc(), o.ratePercentile(), o.nominalInterval().Seconds(), time.Now())
			sum.Unfinished, sum.Error = false, err.Error()
			if ctx.Err() != nil {
				sum.Error = "interrupted"
			}
			bw.WriteStep(sum)
			finish(false)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("step %s: %w", s.Name, err)
		}
		if bar.leaves(s.Name) {
			if err := bw.WriteStep(onceSummary(s, o, startAt)); err != nil {
				finish(false)
				return fmt.Errorf("step %s: %w", s.Name, err)
			}
			continue
		}
		// A placeholder marks the step unfinished until its summary
		// replaces it, so a bundle left by a killed rumbench says so.
		if err := bw.WriteStep(results.Placeholder(s.Name, s.Desc(), o.ratePercentile(), o.nominalInterval().Seconds(), time.Now())); err != nil {
			finish(false)
			return fmt.Errorf("step %s: %w", s.Name, err)
		}
		sum, stepErr := runStep(ctx, o, name, dataDirOf(db, dataDir, srv != nil), w, db, bw, observers, ops, s, startAt)
		sum.CachesDropped = o.DropCaches != nil
		if err := bw.WriteStep(sum); err != nil {
			finish(false)
			return fmt.Errorf("step %s: %w", s.Name, err)
		}
		if stepErr != nil {
			finish(false)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("step %s: %w", s.Name, stepErr)
		}
	}
	if _, err := bar.wait(ctx, "~end"); err != nil {
		finish(false)
		return err
	}
	return finish(true)
}

// runStep runs one step; startAt, when set, is the start the shards of a
// sharded run agreed on: the step waits for it and its intervals start
// there.
func runStep(ctx context.Context, o *Options, name, dataDir string, w workload.Workload, db model.DB, bw *results.Writer, observers []Observer, ops measure.Ops, s workload.Step, startAt time.Time) (*results.Step, error) {
	nominal := o.nominalInterval()
	desc := s.Desc()
	live := newLivePrinter(o.Live, name, s.Name, ops, desc, nominal)
	timeout := o.OpTimeout
	if s.LongOps {
		timeout = 0
	}
	stepCtx, dog := newWatchdog(ctx, timeout)
	defer dog.stop()
	main, _ := ops.Lookup(s.MainOp)
	// lastWKB is the KB the measured processes wrote to storage
	// (/proc/PID/io write_bytes) per main operation in the last interval
	// the sampler measured: the steady-state rule's wkb metric, one
	// interval behind the clock (the sampler reads after the tick). The
	// process figure, not the device's: the kernel's writeback makes the
	// device's writes come in bursts seconds apart. Read and written on
	// the clock's goroutine only.
	lastWKB := 0.0
	clock := measure.NewClock(nominal, ops, func(iv *measure.Interval) {
		dog.observe(iv)
		rec := results.EncodeInterval(s.Name, iv)
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
		if wb, ok := results.Number(rec.System["proc_write_bytes"]); ok {
			if done := iv.Rate(main) * iv.Seconds; done > 0 {
				lastWKB = wb / 1024 / done
			}
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
		DB:      db,
		Clock:   clock,
		Details: map[string]any{},
		Logf: func(format string, args ...any) {
			fmt.Fprintf(o.Log, "[%s %s] %s\n", name, s.Name, fmt.Sprintf(format, args...))
		},
	}
	clock.SetWarmup(time.Duration(s.Warmup * float64(time.Second)))
	if o.Steady != nil && s.Steady {
		value := func(iv *measure.Interval) float64 { return iv.Rate(main) }
		if o.Steady.Metric == steady.WKBPerOp {
			value = func(*measure.Interval) float64 { return lastWKB }
		}
		clock.SetSteady(steady.NewTracker(*o.Steady), value)
	}
	if !startAt.IsZero() {
		if err := sleepUntil(ctx, startAt); err != nil {
			sum := results.Placeholder(s.Name, desc, o.ratePercentile(), nominal.Seconds(), time.Now())
			sum.Unfinished, sum.Error = false, "interrupted"
			return sum, err
		}
	}
	bundleBefore := bw.BytesWritten()
	for _, ob := range observers {
		ob.StepStart(s.Name, desc)
	}
	rr, _ := db.(model.RetryReporter)
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
	err := s.Run(stepCtx, env)
	clock.Stop()
	if terr := dog.fired(stepCtx); terr != nil && ctx.Err() == nil {
		// The workers saw a cancelled context; the cause is the hang or
		// the bundle write.
		err = terr
	}
	if err != nil && ctx.Err() == nil {
		err = diskfull.Explain(err, "data dir", dataDir)
	}
	for _, ob := range observers {
		ob.StepStop(clock, bw.BytesWritten()-bundleBefore)
	}

	sum := SummarizeAt(s.Name, desc, clock, o.ratePercentile())
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
		PromoteDetails(sum)
		if sum.TargetMet != nil && o.Live != nil && sum.Complete {
			// The step's end line: whether its paced writers kept their
			// target (the insert benchmark's SLA, ≥ 95%).
			verdict := "ok"
			if !*sum.TargetMet {
				verdict = "MISSED"
			}
			pct, _ := results.Number(sum.Details["ips_pct_of_target"])
			fmt.Fprintf(o.Live, "%-8s %-6s writers' SLA %s: %.1f%% of their %.0f rows/s target (ok at 95%%)\n", name, s.Name, verdict, pct, *sum.IPSTarget)
		}
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
	sum.EngineSize = -1
	if n, serr := db.Size(ectx); serr == nil {
		sum.EngineSize = n
	}
	if sr, ok := db.(model.StatsReporter); ok {
		if st, serr := sr.Stats(ectx); serr == nil {
			sum.EngineStats = st
		}
	}
	for _, ob := range observers {
		ob.StepEnd(sum, clock)
	}
	estimateClientCPU(ectx, w, db.Info(), sum)
	return sum, err
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

func (o *Options) nominalInterval() time.Duration {
	if o.Interval <= 0 {
		return time.Second
	}
	return o.Interval
}

func (o *Options) ratePercentile() float64 {
	if o.RatePercentile <= 0 {
		return DefaultRatePercentile
	}
	return o.RatePercentile
}

// DefaultRatePercentile is the percentile of per-interval rates a step
// summary reports by default: the insert benchmark's IPS.99.
const DefaultRatePercentile = 99

// Summarize turns a stopped clock into a step summary at the default rate
// percentile.
func Summarize(step string, desc results.StepDesc, c *measure.Clock) *results.Step {
	return SummarizeAt(step, desc, c, DefaultRatePercentile)
}

// SummarizeAt turns a stopped clock into a step summary: every operation's
// totals, rates (average and the rate pct% of intervals met) and latency,
// and the stalls of every judged operation under the step's stall rule.
func SummarizeAt(step string, desc results.StepDesc, c *measure.Clock, pct float64) *results.Step {
	sum := &results.Step{
		Step:           step,
		StepDesc:       desc,
		RatePercentile: pct,
		Started:        c.MeasuredStart().UTC(),
		Seconds:        round3(c.Seconds()),
		Interval:       c.Interval().Seconds(),
		Latency:        map[string]measure.Latency{},
		Ops:            map[string]*results.OpSummary{},
	}
	secs := c.Seconds()
	for i, spec := range c.Ops() {
		op := measure.Op(i)
		rule := desc.OpRule(spec.Name, c.Interval().Seconds())
		t := c.Total(op)
		main := spec.Name == desc.MainOp
		if t == nil && !(main && rule.Timed) {
			continue
		}
		if t != nil {
			lat := measure.Summarize(t.Hist)
			sum.Latency[spec.Name] = lat
			sum.Errors += t.Errors
			o := &results.OpSummary{Unit: spec.Unit, Role: spec.Role, Count: t.Ops, Rows: t.Rows, Errors: t.Errors, Latency: lat}
			if spec.ResponseOf == "" {
				avg := 0.0
				if secs > 0 {
					avg = float64(t.Done(spec.Unit)) / secs
				}
				avg = round1(avg)
				o.RateAvg = &avg
			}
			if spec.Judged() {
				// Operations without a role (an index build) record one
				// event per table: a rate percentile would mean nothing.
				// Over the windows the stall rule judges: a paced
				// operation's intervals shorter than its batch period
				// are grouped.
				p := round1(measure.RateMetBy(rule.WindowRates(c.Rates(op)), pct))
				o.RatePct = &p
				if pct == 99 {
					o.Rate99 = &p
				}
			}
			sum.Ops[spec.Name] = o
		}
		// Judged operations that ran, and the main operation of a
		// time-bounded step even when it never ran: it stalled for the
		// whole window.
		if spec.Judged() {
			st := measure.FindStalls(c.Rates(op), c.RateSeconds(), rule)
			if sum.Stalls == nil {
				sum.Stalls = results.Stalls{}
			}
			sum.Stalls[spec.Name] = &st
		}
	}
	sum.SetLegacyRates()
	return sum
}

func round1(v float64) float64 { return float64(int64(v*10+0.5)) / 10 }
func round3(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }

// PromoteDetails copies the rate-limit results a step reports in Details to
// the summary's top-level fields, where reports and users look for them.
func PromoteDetails(sum *results.Step) {
	num := func(k string) (float64, bool) { return results.Number(sum.Details[k]) }
	if v, ok := num("ips_target"); ok {
		sum.IPSTarget = &v
		if pct, ok := num("target_met_pct"); ok && v > 0 {
			// Judged on the summary's own ips_avg (rows / step seconds
			// up to the clock's stop), so the two never disagree; the
			// workload's own figure, taken when its workers finished, can
			// be a little earlier on a loaded machine.
			met := sum.IPSAvg >= v*pct/100
			sum.Details["target_met"] = met
			sum.Details["ips_pct_of_target"] = float64(int64(sum.IPSAvg/v*1000+0.5)) / 10
		}
	}
	if v, ok := sum.Details["target_met"].(bool); ok {
		sum.TargetMet = &v
	}
	if v, ok := num("rows_per_query"); ok {
		sum.RowsPerQuery = &v
	}
}

// Cooldown pauses for d between two runs (--cooldown), saying so on w; it
// returns ctx's error when interrupted.
func Cooldown(ctx context.Context, d time.Duration, w io.Writer) error {
	if d <= 0 {
		return nil
	}
	fmt.Fprintf(w, "rumbench: cooling down for %s before the next run (--cooldown)\n", d)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
