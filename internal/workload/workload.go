// Package workload defines what a workload gives the runner: the operations
// it records, an ordered list of named steps run against the table model
// under an interval clock (one per run, or a step's own), and (registry.go) how it registers itself with
// its own flags and presets. Workloads never import engine packages; the
// core (runner, sysmetrics, report) never imports a workload package.
package workload

import (
	"context"
	"errors"
	"sync"
	"time"

	"rumbench/internal/measure"
	"rumbench/internal/model"
	"rumbench/internal/results"
)

// Workload is one benchmark (ibench, hotrow, ...) configured for a run.
type Workload interface {
	// Name is the workload's registered name.
	Name() string
	// Ops is the set of operations the workload's steps record.
	Ops() measure.Ops
	// Steps returns the steps to run, in order.
	Steps() []Step
	// Tables names the tables the workload uses.
	Tables() []string
	// Prepare readies the workload's state for db before the first step,
	// e.g. reading table bounds from an existing data dir.
	Prepare(ctx context.Context, db model.DB) error
}

// Connector is implemented by workloads that know the most server
// connections their steps hold at once (beside the engine's own few), so
// that a run is refused before it starts when the server has fewer left.
type Connector interface {
	Connections() int
}

// Calibrator is implemented by workloads that can run a step's client path
// on its own: generate the main operation's input, call the engine, record
// the result, as the step's workers do. The runner runs it against the null
// engine to estimate the client's CPU per operation on embedded engines,
// where client and engine share threads (client_cpu_us_per_op_est).
type Calibrator interface {
	// ClientPath returns a function that runs the client path of step's
	// main operation against db (the null engine) at the step's settings
	// until it has done at least units units of the main operation, in
	// the calling goroutine, and returns the units done. ok is false for
	// steps without a per-operation client path.
	ClientPath(step string) (run func(ctx context.Context, db model.DB, rec *measure.Recorder, units int64) (int64, error), ok bool)
}

// Sharder is implemented by workloads whose clients can be split over
// several rumbench processes driving one server (--shard i/N): each process
// runs a part of the clients on data derived from the seed, so the parts
// together do exactly the work of one process running them all.
type Sharder interface {
	// Shard restricts the workload to shard i of n (0 <= i < n). Called
	// once, before Prepare; an error is the user's input (e.g. fewer
	// clients than shards).
	Shard(i, n int) error
	// Once reports whether step runs on shard 0 alone (an index build or
	// maintenance of the whole database) while the other shards wait.
	Once(step string) bool
}

// Step is one named, separately measured phase of a workload.
type Step struct {
	Name string
	// MainOp names the operation the step is judged by: its rate is the
	// step's headline throughput and its stall series, its latency the
	// summary's p99/max, and the step's per-operation figures (CPU, KB
	// read and written, reads) divide by its count.
	MainOp string
	// Seconds, when positive, marks a time-bounded step: its workers run
	// for that long (stalls are judged over that whole window). Otherwise
	// the step is count-bounded: it ends when its work is done.
	Seconds float64
	// Work is how much of MainOp (in its unit) a count-bounded step
	// plans to do, for the live progress; 0 when unknown.
	Work int64
	// Warmup, for a time-bounded step, is how long its workers run before
	// Seconds of measurement: the runner logs those intervals with
	// "warmup" and leaves them out of every figure. The step runs for
	// Warmup + Seconds.
	Warmup float64
	// Steady marks a time-bounded step whose workers run until
	// Clock.Deadline, so its warm-up can last until a steady-state rule
	// holds (--steady-state): the runner applies the rule only to such
	// steps.
	Steady bool
	// LogicalBytes, when set, is the running total of the logical bytes
	// the workload has inserted (the step's logical_bytes_inserted, but
	// live), safe to call from any goroutine: the steady-state rule's
	// wamp metric takes its difference at every interval. Nil for a step
	// that inserts nothing, which that rule refuses.
	LogicalBytes func() int64
	// LongOps marks a step whose single operations may rightly take
	// longer than --op-timeout (an index build, a full scan, the engine's
	// maintenance): the runner's watchdog leaves it alone.
	LongOps bool
	// OpPeriods holds, per operation paced in batches on a schedule, the
	// planned seconds between two of its batches over all its workers:
	// the stall rule and rate percentiles judge it over windows of at
	// least three periods (results.StepDesc.OpPeriodS).
	OpPeriods map[string]float64
	// Interval, when positive, is the step's measurement interval instead
	// of the run's: planned from the step's work before the run, the same
	// for every engine of it (the ibench quick preset's short steps).
	Interval time.Duration
	// Setup, when set, runs before the step's clock and the sampler start:
	// what the step needs ready that is not part of what it measures (its
	// clients' connections, a read-back of the state it will check). A
	// setup inside Run would count as stalled intervals of a time-bounded
	// step, and cut its window short.
	Setup func(ctx context.Context, env *Env) error
	Run   func(ctx context.Context, env *Env) error
}

// Desc is the step's description as recorded in its summary.
func (s Step) Desc() results.StepDesc {
	return results.StepDesc{MainOp: s.MainOp, TimeBoundedS: s.Seconds, Work: s.Work, WarmupS: s.Warmup, OpPeriodS: s.OpPeriods}
}

// Env is what a step runs with.
type Env struct {
	DB model.DB
	// Clock is the step's interval clock; each worker takes its own Recorder.
	Clock *measure.Clock
	// Details are step-specific results, copied into the step summary.
	Details map[string]any
	// Logf prints a progress note (not an interval line).
	Logf func(format string, args ...any)
	// Targets are the rate targets of the operations the step paces
	// (Pace); the runner judges them on the step's summary.
	Targets []results.Target
}

// Pace declares that the step paces operation op on a schedule at rate
// (op's unit per second, all its clients together); who names the paced
// workers in the plural ("writers", "requests"), as views say it. Its
// verdict (met at 95%) is made on the step's summary, once.
func (e *Env) Pace(op, who string, rate float64) {
	e.Targets = append(e.Targets, results.PacedOp(op, who, rate))
}

// Details keys through which a step reports the logical size of its data,
// the denominators of write and space amplification (docs/metrics.md).
// Values are int64 bytes, set by the step before it returns.
const (
	DetailLogicalBytesInserted = results.DetailLogicalBytesInserted
	DetailLogicalLiveBytes     = results.DetailLogicalLiveBytes
)

// ErrNotPrepared is wrapped by Prepare when the data dir lacks what the
// chosen steps need (e.g. tables a load step creates): the user's input, not
// an engine failure.
var ErrNotPrepared = errors.New("data dir is not ready for these steps")

// WorkerLabel is the profiler label a step's workers run under,
// worker=NAME (each workload names its own: ibench's query, writer and
// deleter, LinkBench's requester), which the goroutines they start (an
// in-process store's) inherit: a CPU profile of the step (--profile)
// splits by worker with pprof -tagfocus worker=NAME, and the floor
// benchmark reads the workers' CPU apart from the rest that way. A label
// is set once per worker, not per operation.
const WorkerLabel = "worker"

// Parallel runs fn on n goroutines (i = 0..n-1) and returns the first real
// error; the others are cancelled through ctx, and a real failure is
// preferred over the cancellations it caused.
func Parallel(ctx context.Context, n int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := fn(ctx, i); err != nil {
				errs[i] = err
				cancel()
			}
		}()
	}
	wg.Wait()
	return FirstError(errs)
}

// FirstError returns the first of errs that is not a cancellation, else the
// first cancellation (nil if all are nil): a real failure is preferred over
// the cancellations it caused in the other workers.
func FirstError(errs []error) error {
	var first error
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
		if first == nil {
			first = err
		}
	}
	return first
}
