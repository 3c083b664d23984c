package execute

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"rumbench/internal/launch"
	"rumbench/internal/plan"
	"rumbench/internal/report"
	"rumbench/internal/results"
	"rumbench/internal/runner"
	"rumbench/internal/sweep"
)

// SweepJob is a planned `rumbench sweep`.
type SweepJob struct {
	Plan *plan.SweepPlan
	Spec *sweep.Spec
	// Memory is launch.SetupMemory's.
	Memory *launch.Memory
	Out    string
	// Cell is the one cell to run (--cell), -1 for all.
	Cell int
	// Verbose prints each run's interval lines.
	Verbose   bool
	CompareTo string
	Cooldown  time.Duration
	Repeat    int
	// ChildCell and ChildRep are the cell and repetition an engine's
	// child process runs (--child-cell, --child-rep); ChildEngine its
	// variant's label.
	ChildCell, ChildEngine string
	ChildRep               int
}

// Sweep runs j: in the parent, every cell not finished yet (or cell
// j.Cell) on one managed server per variant, then the matrices and the
// history; in an engine's child, that engine of one cell.
func (e *Executor) Sweep(j SweepJob) error { return e.done(e.sweep(j)) }

func (e *Executor) sweep(j SweepJob) (retErr error) {
	bad := func(err error) error { return &runner.BadInputError{Err: err} }
	p, spec, ms, stdout := j.Plan, j.Spec, j.Memory, e.Stdout
	var servers *plan.Servers
	if !e.Child {
		// A child runs one embedded variant; the parent owns the servers.
		var err error
		if servers, err = p.Servers(ms, stdout); err != nil {
			return err
		}
	}
	// One server per managed variant, for all its cells: stopped once the
	// cells are run, or on the way out.
	pool := servers.Pool()
	defer func() {
		if err := pool.Close(); err != nil && retErr == nil {
			retErr = err
		}
	}()
	// engine is a variant's label: its engine's name for a bare one.
	options := func(c sweep.Cell, engine, dir string) runner.Options {
		o := p.CellOptions(c, engine, dir)
		o.Live, o.Log = io.Discard, io.Discard
		if j.Verbose {
			o.Live, o.Log = stdout, stdout
		}
		o.Observers = e.observers()
		o.MemoryCgroup, o.DropCaches = ms.ChildStats(), ms.Drop
		o.StartServer = pool.Starter()
		return o
	}
	probe := p.Probe(j.Out)
	if err := runner.CheckEngines(&probe); err != nil {
		return err
	}
	if err := e.CheckHistory(context.Background()); err != nil {
		return err
	}
	ctx, stop := e.signals()
	defer stop()
	if e.Child {
		// One engine of one cell, in the parent's cgroup.
		for _, c := range spec.Cells() {
			if c.Name() == j.ChildCell {
				_, err := runner.Run(ctx, options(c, j.ChildEngine, filepath.Dir(spec.RunDir(j.Out, c, j.ChildEngine, j.ChildRep))))
				return err
			}
		}
		return bad(fmt.Errorf("--child-cell %s is not a cell of this sweep", j.ChildCell))
	}
	if hasWork(spec, j.Out, j.Cell) {
		// Two variants that end up the same once open are refused before
		// anything runs; a managed variant's server, started to read it
		// back, then serves its cells. (A rerun with nothing left to run
		// starts no server.)
		probe.StartServer, probe.Log = pool.Starter(), stdout
		if err := runner.CheckDistinctSettings(ctx, &probe); err != nil {
			return err
		}
	}
	var iso *launch.Isolator
	if ms.Ctl != nil {
		if err := launch.CheckLimitable(p.Engines, servers.Manages); err != nil {
			return bad(err)
		}
		iso = e.isolator(ms)
	}
	if j.CompareTo != "" && !sweep.IsSweep(j.CompareTo) {
		return bad(fmt.Errorf("--compare-to %s is not a sweep directory (it holds no %s)", j.CompareTo, sweep.SpecFile))
	}
	ran := false
	runCell := func(ctx context.Context, c sweep.Cell, engine, dir string) error {
		if ran {
			if err := runner.Cooldown(ctx, j.Cooldown, stdout); err != nil {
				return err
			}
		}
		ran = true
		// The runner writes Out/<engine>.
		o := options(c, engine, filepath.Dir(dir))
		if iso != nil {
			o.Isolate = func(ctx context.Context, engine, _ string) (bool, error) {
				args := []string{"--child-cell", c.Name()}
				if rep := filepath.Base(filepath.Dir(dir)); spec.Reps() > 1 {
					args = append(args, "--child-rep", strings.TrimPrefix(rep, results.RepPrefix))
				}
				return iso.RunVariant(ctx, engine, spec.EngineOf(engine), dir, "", args...)
			}
		}
		_, err := runner.Run(ctx, o)
		return err
	}
	if j.Cell >= 0 {
		c := spec.Cells()[j.Cell]
		fmt.Fprintf(stdout, "rumbench sweep: cell %d of %d (%s) × %d engines, %s; results in %s\n", j.Cell, len(spec.Cells()), c.Name(), len(spec.Engines), spec.Banner(), j.Out)
		err := sweep.RunCell(ctx, spec, j.Out, j.Cell, runCell, stdout)
		err = closePool(pool, err)
		if ctx.Err() != nil {
			fmt.Fprintln(stdout, "sweep cell interrupted: rerun the same command to resume it")
			return runner.ErrInterrupted
		}
		if err == nil {
			fmt.Fprintf(stdout, "cell %d (%s) is finished; the matrices of the cells present: rumbench sweep collect %s\n", j.Cell, c.Name(), j.Out)
		}
		return e.recordHistory([]string{j.Out}, err)
	}
	fmt.Fprintf(stdout, "rumbench sweep: %d cells × %d engines, %s; results in %s\n", len(spec.Cells()), len(spec.Engines), spec.Banner(), j.Out)
	if j.Repeat > 1 {
		fmt.Fprintln(stdout, report.RepeatCaveat(j.Repeat))
	}
	err := sweep.Run(ctx, spec, j.Out, runCell, stdout)
	err = closePool(pool, err)
	if ctx.Err() != nil {
		fmt.Fprintln(stdout, "sweep interrupted: rerun the same command to resume")
		return runner.ErrInterrupted
	}
	PrintSweepReport(stdout, j.Out, spec, j.CompareTo)
	// Every cell present, those of an earlier, resumed invocation too: a
	// cell recorded before is the same run again.
	return e.recordHistory([]string{j.Out}, err)
}

// hasWork reports whether the sweep in out (cell, or every cell when cell
// is -1) has a run not finished yet.
func hasWork(spec *sweep.Spec, out string, cell int) bool {
	for _, st := range sweep.Status(spec, out) {
		if (cell < 0 || st.Index == cell) && len(st.Missing) > 0 {
			return true
		}
	}
	return false
}

// closePool stops the sweep's managed servers once its runs are over, and
// returns the runs' error, else the servers'.
func closePool(pool *plan.ServerPool, runErr error) error {
	if err := pool.Close(); err != nil && runErr == nil {
		return err
	}
	return runErr
}

// PrintSweepReport prints the matrices (and the comparison with an earlier
// sweep) and writes report.html; failing to draw them does not fail the
// sweep, whose results are saved.
func PrintSweepReport(stdout io.Writer, out string, spec *sweep.Spec, compareTo string) {
	if perr := sweep.Markdown(stdout, out, spec); perr != nil {
		fmt.Fprintf(stdout, "rumbench: could not print the matrices: %v\n", perr)
	}
	if compareTo != "" {
		if perr := sweep.CompareMarkdown(stdout, out, spec, compareTo); perr != nil {
			fmt.Fprintf(stdout, "rumbench: could not print the comparison: %v\n", perr)
		}
	}
	html := filepath.Join(out, "report.html")
	if n, herr := sweep.WriteHTMLFile(html, out, spec); herr == nil {
		fmt.Fprintf(stdout, "\nHTML report with %d charts: %s\n", n, html)
	} else {
		fmt.Fprintf(stdout, "rumbench: could not write the HTML report: %v\n", herr)
	}
}

// Collect prints the report of the sweep in dir from the cells present
// (`rumbench sweep collect`), listing those missing; missing cells are an
// error (exit 1), a dir that is no sweep bad input.
func Collect(stdout io.Writer, dir string) error {
	if !sweep.IsSweep(dir) {
		return &runner.BadInputError{Err: fmt.Errorf("%s is not a sweep directory (it holds no %s): give the --out of a sweep", dir, sweep.SpecFile)}
	}
	spec, err := sweep.Load(dir)
	if err != nil {
		return &runner.BadInputError{Err: err}
	}
	status := sweep.Status(spec, dir)
	var missing []string
	for _, st := range status {
		if len(st.Missing) > 0 {
			missing = append(missing, fmt.Sprintf("%d %s", st.Index, st.Cell.Name()))
		}
	}
	fmt.Fprintf(stdout, "rumbench sweep collect: %d of %d cells finished in %s\n", len(status)-len(missing), len(status), dir)
	for _, st := range status {
		if len(st.Missing) > 0 {
			fmt.Fprintf(stdout, "missing: cell %d %s (%s)\n", st.Index, st.Cell.Name(), strings.Join(st.Missing, ", "))
		}
	}
	PrintSweepReport(stdout, dir, spec, "")
	if len(missing) > 0 {
		return fmt.Errorf("%d of %d cells missing: %s (rerun one with --cell INDEX and the sweep's flags)", len(missing), len(status), strings.Join(missing, ", "))
	}
	return nil
}
