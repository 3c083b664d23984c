// Package execute runs what `rumbench run` and `rumbench sweep` planned:
// one executor for both, which knows whether this process is the parent
// or an engine's child (--memory-limit), catches the signals, isolates
// embedded engines in memory cgroups, starts and stops the managed
// servers, writes the reports and records the runs in the history.
package execute

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"rumbench/internal/launch"
	"rumbench/internal/profile"
	"rumbench/internal/runner"
	"rumbench/internal/sysmetrics"
)

// History records runs when they end (--history).
type History interface {
	// Check opens the history before anything runs, so that one that
	// cannot be opened is refused before hours of benchmarking.
	Check(ctx context.Context) error
	// Record records the bundles in dirs; it returns runErr (the run's
	// own error) unless recording a successful run failed.
	Record(dirs []string, runErr error, w io.Writer) error
}

// Executor runs a planned run or sweep. Child says whether this process is
// an engine's child process (--memory-limit: --child-engine), whose parent
// prints the banner, the report and the interruption, owns the servers and
// records the history.
type Executor struct {
	Child bool
	// Invocation is the command line rumbench was started with: an
	// engine's child process is started with it.
	Invocation     []string
	Stdout, Stderr io.Writer
	// BadInputExit is the exit code of a child that refused its input.
	BadInputExit int
	// History, when set, records the runs (the parent's only).
	History History
	// Profile records each step's profiles (--profile).
	Profile bool
	// metrics says each system-metrics message once per invocation: every
	// engine and sweep cell shares it, and engines' child processes write
	// their stderr through its filter.
	metrics *sysmetrics.OnceLog
}

// New returns the executor of this invocation, an engine's child process's
// when child is set.
func New(child bool, invocation []string, stdout, stderr io.Writer, badInputExit int, h History) *Executor {
	return &Executor{Child: child, Invocation: invocation, Stdout: stdout, Stderr: stderr, BadInputExit: badInputExit, History: h,
		metrics: sysmetrics.NewOnceLog(os.Stderr)}
}

// ChildError is the error of an engine's child process: its parent reports
// an interruption, so the child does not say it again.
type ChildError struct{ Err error }

func (c *ChildError) Error() string { return c.Err.Error() }
func (c *ChildError) Unwrap() error { return c.Err }

// InChild reports whether err is an engine's child process's.
func InChild(err error) bool {
	var c *ChildError
	return errors.As(err, &c)
}

// done is the end of Run or Sweep: a child's error is marked as one.
func (e *Executor) done(err error) error {
	if err != nil && e.Child {
		return &ChildError{Err: err}
	}
	return err
}

// CheckHistory opens the history before anything runs (the parent only).
func (e *Executor) CheckHistory(ctx context.Context) error {
	if e.History == nil || e.Child {
		return nil
	}
	return e.History.Check(ctx)
}

// recordHistory records the bundles in dirs when the run ends.
func (e *Executor) recordHistory(dirs []string, runErr error) error {
	if e.History == nil {
		return runErr
	}
	return e.History.Record(dirs, runErr, e.Stdout)
}

// observers are the step observers every run uses (system metrics).
// Unavailable counters and warnings (the output on the data dir's device)
// are explained once per invocation on stderr and in each step's
// metrics.null_reasons.
func (e *Executor) observers() []runner.ObserverFactory {
	if e.Profile {
		// First, so perf records before the sampler's first sample.
		return []runner.ObserverFactory{profile.Factory(e.Stderr), sysmetrics.FactoryLog(e.metrics)}
	}
	return []runner.ObserverFactory{sysmetrics.FactoryLog(e.metrics)}
}

// isolator runs engines in child processes of this invocation, limited by
// ms; their stderr leaves out the metrics lines this invocation said
// already.
func (e *Executor) isolator(ms *launch.Memory) *launch.Isolator {
	return &launch.Isolator{Mem: ms, Invocation: e.Invocation, Stdout: e.Stdout, Stderr: e.metrics.Filter(e.Stderr), BadInputExit: e.BadInputExit}
}

// signals returns a context that the first SIGINT or SIGTERM cancels. It
// keeps catching them until stop: a second signal — `timeout` sends one to
// the process and another to its group; an impatient Ctrl-C — must not
// kill the process while it stops its servers, removes its data dirs and
// writes its report. A later one is only said on stderr (the parent's).
func (e *Executor) signals() (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 4)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	quit := make(chan struct{})
	go func() {
		first := true
		for {
			select {
			case <-quit:
				return
			case <-ch:
				if first {
					first = false
					cancel()
					continue
				}
				if !e.Child {
					fmt.Fprintln(e.Stderr, "rumbench: already stopping: removing the servers and temporary data it started, then saving the results")
				}
			}
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(quit)
		cancel()
	}
}
