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
	"strings"
	"time"

	"rumbench/internal/engine"
	"rumbench/internal/engineopt"
	"rumbench/internal/measure"
	"rumbench/internal/membudget"
	"rumbench/internal/model"
	"rumbench/internal/results"
	"rumbench/internal/steady"
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

// TailObserver is an Observer that also measures the run's tail: what the
// engine does after its last step (closing it: a final flush or
// compaction; stopping a managed server), charged to no step.
type TailObserver interface {
	// TailStart is called when the last step has ended, before the engine
	// is closed.
	TailStart()
	// TailEnd is called once the engine is closed and a managed server
	// stopped; what it returns is run.json's tail.
	TailEnd() *results.Tail
}

// ObserverFactory creates an observer for one opened engine whose data is
// in dataDir and whose bundle is written to bundleDir.
type ObserverFactory func(ctx context.Context, db model.DB, dataDir, bundleDir string) (Observer, error)

// Options configure a run.
type Options struct {
	// Variants are the engines to run, in order, each under its label
	// (the same engine may be listed under two labels) and with its
	// settings resolved (plan): the runner opens each with its Options as
	// they are. Everything per engine is per label: the bundle
	// Out/<label>, the data dir, the server, the live lines.
	Variants []model.Variant
	// Out is the results directory; each engine writes Out/<label>.
	Out string
	// DataDir is the data directory; "" means a temporary one per engine,
	// removed afterwards. With several engines each uses DataDir/<engine>.
	DataDir string
	// EngineOpts are the --engine-opt settings as given ("key" for every
	// engine that has the setting, "scope.key" for one engine or label),
	// checked for keys no variant takes; each variant runs with its own
	// Options, not these.
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
	// StepPause is a pause between two steps of an engine's run
	// (--step-pause): after one step's summary is written (its end-of-step
	// flush and sample done) and before the next step's setup, outside
	// both steps' windows.
	StepPause time.Duration
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
	// Shared marks a server that outlives the run and serves the next
	// ones (a sweep's variant, in a database per run): after the last
	// step the runner waits for the engine's background work (purge,
	// flushes, compactions: model.Quiescer), so it is not charged to the
	// next run.
	Shared bool
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
	for _, v := range o.Variants {
		if _, err := os.Stat(filepath.Join(o.Out, v.Label, results.RunFile)); err == nil {
			return badInput("%s already holds results for %s: choose another --out (nothing was overwritten)", o.Out, v.Label)
		}
	}
	return nil
}

// CheckEngines validates the engines and their settings.
func CheckEngines(o *Options) error {
	if len(o.Variants) == 0 {
		return badInput("no engine given: use --engine with one of %s", strings.Join(engine.Names(), ", "))
	}
	if err := o.checkShard(); err != nil {
		return err
	}
	// A label listed twice is refused where the variants are made
	// (plan.ParseEngines).
	for _, v := range o.Variants {
		name := v.Engine
		d, err := engine.Lookup(name)
		if err != nil {
			return &BadInputError{Err: err}
		}
		if err := d.Available(); err != nil {
			return badInput("engine %s is not available here: %v", name, err)
		}
		cfg := model.Config{DSN: o.DSN, Database: o.Database, Options: v.Options}
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

// BareVariant is engine under its own name with the settings of opts that
// apply to it (OptionsFor): the variant of a one-engine run made without
// a plan (tests, benchmarks).
func BareVariant(engine string, opts map[string]string) model.Variant {
	return model.Variant{Label: engine, Engine: engine, Options: OptionsFor(engine, opts)}
}

// optionsFor picks the settings that apply to driver d.
func optionsFor(d model.Driver, all map[string]string) map[string]string {
	return engineopt.Scoped(all).For(d.Name(), func(key string) bool {
		for _, opt := range d.Options() {
			if opt.Key == key {
				return true
			}
		}
		return false
	})
}

// checkUnscopedOptions rejects a plain key that no selected engine knows, and
// a scoped key for an engine that is not selected.
func checkUnscopedOptions(o *Options) error {
	var scopes []string
	for _, v := range o.Variants {
		scopes = append(scopes, v.Engine)
	}
	engineOf := map[string]string{}
	for _, v := range o.Variants {
		engineOf[v.Engine] = v.Engine
		if !v.Bare() {
			scopes = append(scopes, v.Label)
			engineOf[v.Label] = v.Engine
		}
	}
	err := engineopt.Scoped(o.EngineOpts).Check(dedup(scopes), func(scope string) []string {
		d, _ := engine.Lookup(engineOf[scope])
		var keys []string
		for _, opt := range d.Options() {
			keys = append(keys, opt.Key)
		}
		return keys
	})
	if err != nil {
		return &BadInputError{Err: err}
	}
	return nil
}

// dedup is s without repeats, in order.
func dedup(s []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
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
	f, err := os.CreateTemp(probe, results.WriteCheckPrefix+"*")
	if err != nil {
		return badInput("--out %s is not writable: %v (choose a writable directory)", dir, errors.Unwrap(err))
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// givenDataDir is the data dir of the variant labelled name when
// --data-dir was given, else "".
func (o *Options) givenDataDir(name string) string {
	if o.DataDir == "" || len(o.Variants) == 1 {
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
	if len(o.Variants) > 1 {
		return filepath.Join(o.DataDir, name), func() {}, nil
	}
	return o.DataDir, func() {}, nil
}

func (o *Options) nominalInterval() time.Duration {
	if o.Interval <= 0 {
		return time.Second
	}
	return o.Interval
}

// stepInterval is step s's clock interval: its own when the workload planned
// one (the same for every engine of the run), else the run's.
func (o *Options) stepInterval(s workload.Step) time.Duration {
	if s.Interval > 0 {
		return s.Interval
	}
	return o.nominalInterval()
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
