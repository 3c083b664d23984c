package execute

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"rumbench/internal/launch"
	"rumbench/internal/managed"
	"rumbench/internal/plan"
	"rumbench/internal/report"
	"rumbench/internal/results"
	"rumbench/internal/runner"
	"rumbench/internal/workload"
)

// RunJob is a planned `rumbench run`.
type RunJob struct {
	Workload *workload.Definition
	Plan     *plan.RunPlan
	// Memory is launch.SetupMemory's (after CheckHistory).
	Memory *launch.Memory
	// Managed is the --managed request (its servers are the parent's).
	Managed managed.Request
	DSN     string
	// Engines and Preset are as given, for the banner.
	Engines []string
	Preset  string
	// Out is --out ("": rumbench-results/<timestamp>).
	Out           string
	Repeat        int
	Quiet         bool
	ReplaceReport bool
	// Shard resolves the sharding flags (nil options: not sharded).
	Shard func() (*runner.ShardOptions, error)
}

// Run runs j: in the parent, every engine (each repetition, each in its
// memory cgroup's child process when limited, each managed engine on its
// server), then the report and the history; in an engine's child, that
// engine alone.
func (e *Executor) Run(j RunJob) error { return e.done(e.run(j)) }

func (e *Executor) run(j RunJob) error {
	p, ms, stdout := j.Plan, j.Memory, e.Stdout
	out := j.Out
	if out == "" {
		out = filepath.Join("rumbench-results", time.Now().Format("20060102-150405"))
	}
	repeat := j.Repeat
	if e.Child {
		repeat = 1 // the parent runs the repetitions; --out is this one's
	}
	// Where the run (or the current repetition) writes its bundles.
	runOut := out
	ctx, stop := e.signals()
	defer stop()

	var servers *plan.Servers
	if !e.Child {
		var err error
		servers, err = plan.PlanServers(j.Managed, p.Variants, p.DataDir, j.DSN, p.Budget(), ms, stdout)
		if err != nil {
			return err
		}
	}
	var isolate func(ctx context.Context, engine, dataDir string) (bool, error)
	if ms.Ctl != nil {
		if err := launch.CheckLimitable(p.Engines, servers.Manages); err != nil {
			return &runner.BadInputError{Err: err}
		}
		iso := e.isolator(ms)
		engineOf := map[string]string{}
		for _, v := range p.Variants {
			engineOf[v.Label] = v.Engine
		}
		// label is the variant's (its engine's name for a bare one).
		isolate = func(ctx context.Context, label, dataDir string) (bool, error) {
			extra := []string{"--out", runOut}
			if dataDir != "" {
				extra = append(extra, "--data-dir", dataDir)
			}
			return iso.RunVariant(ctx, label, engineOf[label], filepath.Join(runOut, label), dataDir, extra...)
		}
	}
	ro := p.Options(out, ms, servers.Recorded())
	ro.StartServer, ro.Isolate = servers.Starter(), isolate
	ro.Observers = e.observers()
	ro.Live, ro.Log = stdout, stdout
	if j.Quiet {
		ro.Live, ro.Log = io.Discard, e.Stderr
	}
	if j.Shard != nil {
		var err error
		if ro.Shard, err = j.Shard(); err != nil {
			return err
		}
	}
	// Refuse bad input (engines, settings, --dsn, --out) before printing
	// anything; Run checks again.
	for _, dir := range plan.RepeatDirs(out, repeat) {
		ro.Out = dir
		if err := runner.Check(&ro); err != nil {
			return err
		}
	}
	if e.Child {
		// The parent checked the run and prints the banner and the report.
		_, err := runner.Run(ctx, ro)
		return err
	}
	if ro.Shard == nil {
		// Two variants that end up the same once open are refused
		// before anything is measured (exit 2).
		if err := runner.CheckDistinctSettings(ctx, &ro); err != nil {
			return err
		}
	}
	if !j.ReplaceReport {
		// An --out reused for other engines or variants would have its
		// report replaced by one of this run alone.
		if _, err := os.Stat(filepath.Join(out, "report.html")); err == nil {
			return &runner.BadInputError{Err: fmt.Errorf("--out %s already holds a report (report.html) of earlier runs, which this run would replace: give a new --out, or --replace-report to write over it", out)}
		}
	}
	// A server without room for the run's connections is refused before
	// anything is created (exit 2), not part way through.
	if err := runner.CheckConnectionRoom(ctx, &ro); err != nil {
		return err
	}
	banner := stdout
	if j.Quiet {
		banner = e.Stderr
	}
	fmt.Fprintf(banner, "rumbench run: workload %s, preset %s, engines %s, %s; results in %s\n",
		j.Workload.Name, j.Preset, strings.Join(j.Engines, ","), p.Workload.Banner, out)
	if repeat > 1 {
		// What this many repetitions can show, before they run.
		fmt.Fprintln(banner, report.RepeatCaveat(repeat))
		runErr := plan.RunRepeated(ctx, &ro, repeat, out, &runOut, stdout, func() (*report.Report, error) {
			return report.RepeatReport(stdout, out, j.Quiet)
		})
		return e.recordHistory(results.RepDirs(out), runErr)
	}
	res, runErr := runner.Run(ctx, ro)
	var bundles []*results.Bundle
	for _, r := range res {
		b, err := results.Read(r.Dir)
		if err != nil {
			continue
		}
		bundles = append(bundles, b)
	}
	if len(bundles) > 0 {
		// The report is a view of results already saved: failing to draw
		// it must not fail the run.
		rep, err := printRunReport(stdout, j.Workload, bundles, out, j.Quiet)
		if err != nil {
			fmt.Fprintf(stdout, "rumbench: could not write the report: %v\n", err)
		}
		fmt.Fprintf(stdout, "\nresults: %s\n", out)
		if rep != nil {
			// The verdict last: what a reader acts on.
			fmt.Fprintln(stdout)
			rep.WriteVerdict(stdout)
		}
	}
	var dirs []string
	for _, r := range res {
		dirs = append(dirs, r.Dir)
	}
	return e.recordHistory(dirs, runErr)
}

// printRunReport prints the end-of-run view, the same for every workload:
// a summary per engine and the comparison report, whose warnings (a busy
// host) come first, with quiet only its summary tables, and report.html;
// then the workload's own tables when it has them. It returns the report
// whose verdict ends the output.
func printRunReport(w io.Writer, d *workload.Definition, bundles []*results.Bundle, out string, quiet bool) (*report.Report, error) {
	if !quiet {
		for _, b := range bundles {
			report.StepSummary(w, b)
		}
	}
	rep, err := report.RunReport(w, bundles, filepath.Join(out, "report.html"), quiet)
	if err != nil || d.Report == nil {
		return rep, err
	}
	return rep, d.Report(w, bundles, out)
}
