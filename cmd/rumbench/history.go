package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"rumbench/internal/history"
	"rumbench/internal/report"
	"rumbench/internal/runner"
)

// historyFlags are the flags every `rumbench history` subcommand shares.
type historyFlags struct {
	target string
	filter filterFlags
}

// filterFlags select runs.
type filterFlags struct {
	label, engine, step, workload, hostClass, since string
}

func (f *filterFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&f.label, "label", "", "only runs recorded under this label (the LABEL of --engine LABEL=ENGINE or of history add --label, else the engine's name; list shows it)")
	fs.StringVar(&f.engine, "engine", "", "only runs of this engine")
	fs.StringVar(&f.step, "step", "", "only this step (e.g. l.i1), and for list the runs that ran it")
	fs.StringVar(&f.workload, "workload", "", "only runs of this workload")
	fs.StringVar(&f.hostClass, "host-class", "", "only runs on this host class (CPU/cores/memory/device, as list shows it)")
	fs.StringVar(&f.since, "since", "", "only runs started at or after this: a date (2026-01-31), an RFC 3339 time, or an age (36h, 7d)")
}

func (f *filterFlags) filter(now time.Time) (history.Filter, error) {
	out := history.Filter{Label: f.label, Engine: f.engine, Step: f.step, Workload: f.workload, HostClass: f.hostClass}
	if f.since == "" {
		return out, nil
	}
	since, err := history.ParseSince(f.since, now)
	if err != nil {
		return out, &runner.BadInputError{Err: err}
	}
	out.Since = since
	return out, nil
}

// historyTarget is where the history is: --history, or the default file.
func historyTarget(given string) (string, error) {
	if given != "" {
		return given, nil
	}
	p, err := history.DefaultPath()
	if err != nil {
		return "", &runner.BadInputError{Err: err}
	}
	return p, nil
}

// openHistory opens the store, creating it when create is set (history
// add, run --history); the reading commands refuse a history that does not
// exist, so that a mistyped --history fails (a CI gate that reads an empty
// history would always pass). Failing to open is the user's input (a path
// that cannot be created, a server that does not answer): exit 2.
func openHistory(ctx context.Context, given string, create bool) (*history.Store, error) {
	target, err := historyTarget(given)
	if err != nil {
		return nil, err
	}
	open := history.OpenExisting
	if create {
		open = history.Open
	}
	s, err := open(ctx, target)
	if errors.Is(err, history.ErrNoHistory) {
		return nil, &runner.BadInputError{Err: err}
	}
	if err != nil {
		return nil, &runner.BadInputError{Err: fmt.Errorf("%w (check --history)", err)}
	}
	return s, nil
}

const historyFlagHelp = "the history: a SQLite file, or postgres://user@host:port/database for a shared one (default $XDG_DATA_HOME/rumbench/history.db, else ~/.local/share/rumbench/history.db)"

// series reads the series the filter flags select from the history; where
// names the store for messages.
func (f *historyFlags) series(ctx context.Context) (ss []*history.Series, where string, err error) {
	flt, err := f.filter.filter(time.Now())
	if err != nil {
		return nil, "", err
	}
	s, err := openHistory(ctx, f.target, false)
	if err != nil {
		return nil, "", err
	}
	defer s.Close()
	ss, err = s.Series(ctx, flt)
	return ss, s.Where(), err
}

func newHistoryCmd() *cobra.Command {
	f := &historyFlags{}
	cmd := &cobra.Command{
		Use:   "history",
		Short: "Keep every run in a database and compare runs over time: add, list, show, export, check for regressions",
		Long: `The results history keeps runs in a database (a SQLite file by default,
PostgreSQL for a team) so that runs can be compared across builds, versions
and machines. ` + "`rumbench run --history PATH`" + ` records a run when it ends;
` + "`rumbench history add DIR...`" + ` imports bundles already written.

A series is the runs that share workload, sizes, step, label and host class;
each point keeps rumbench's and the engine's build and settings, so that a
change point names what changed around it. ` + "`history check`" + ` exits 1 when the
newest runs of a series hold a regression (docs/history.md).`,
	}
	// Runnable with argsNone, as the root command: an unknown subcommand
	// is refused on one line (exit 2), alone it prints the help.
	cmd.Args = argsNone
	cmd.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
	cmd.PersistentFlags().StringVar(&f.target, "history", "", historyFlagHelp)
	cmd.AddCommand(newHistoryAddCmd(f), newHistoryListCmd(f), newHistoryShowCmd(f), newHistoryExportCmd(f), newHistoryCheckCmd(f), newHistoryCalibrateCmd(f), newHistoryCompareCmd(f))
	return cmd
}

func newHistoryAddCmd(f *historyFlags) *cobra.Command {
	var label string
	cmd := &cobra.Command{
		Use:   "add DIR...",
		Short: "Import run bundles: single runs, --out directories, repeated runs, sweeps, merged shards",
		Long: `Record every bundle found under each DIR (at any depth, as report finds
them): an engine's bundle, a run's --out, a repeated run's rep-N, a sweep's
cells, a merged sharded run. A bundle already recorded is replaced, not
added again: a run is known by its host, start time, engine and workload,
wherever its directory is. A shard's own bundle is skipped: record the
bundle ` + "`rumbench merge`" + ` makes of the shards.`,
		Example: `  rumbench history add rumbench-results/*
  rumbench history add --history postgres://bench@db:5432/history results/`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &runner.BadInputError{Err: fmt.Errorf("history add needs at least one DIR: a run bundle or a directory of them")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			s, err := openHistory(ctx, f.target, true)
			if err != nil {
				return err
			}
			defer s.Close()
			return addToHistory(ctx, s, args, label, cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&label, "label", "", "record the runs under this label instead of their own (their variant's label, else their engine's name)")
	return cmd
}

// addToHistory records the bundles under dirs and says what it did.
func addToHistory(ctx context.Context, s *history.Store, dirs []string, label string, w io.Writer) error {
	added, err := s.AddDirs(ctx, dirs, label)
	for _, a := range added {
		switch {
		case a.Skipped != "":
			fmt.Fprintf(w, "skipped %s: %s\n", a.Dir, a.Skipped)
		case a.Existed:
			fmt.Fprintf(w, "updated %s (already recorded: run %.12s, %d steps)\n", a.Dir, a.Key, a.Steps)
		default:
			fmt.Fprintf(w, "added   %s (run %.12s, %d steps)\n", a.Dir, a.Key, a.Steps)
		}
	}
	if err != nil {
		if len(added) == 0 && !strings.HasPrefix(err.Error(), "history ") {
			return &runner.BadInputError{Err: err} // the directories named
		}
		return err
	}
	fmt.Fprintf(w, "history %s: %d bundles recorded\n", s.Where(), len(added))
	return nil
}

func newHistoryListCmd(f *historyFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List recorded runs, oldest first",
		Args:  argsNone,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			flt, err := f.filter.filter(time.Now())
			if err != nil {
				return err
			}
			s, err := openHistory(ctx, f.target, false)
			if err != nil {
				return err
			}
			defer s.Close()
			runs, err := s.Runs(ctx, flt)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if len(runs) == 0 {
				fmt.Fprintf(w, "no recorded runs match (history %s)\n", s.Where())
				return nil
			}
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "RUN\tSTARTED (UTC)\tLABEL\tENGINE\tWORKLOAD\tSTEPS\tRUMBENCH\tHOST CLASS\tDIR")
			for _, r := range runs {
				state := strconv.Itoa(r.Steps)
				if !r.Complete {
					state += " (incomplete)"
				}
				fmt.Fprintf(tw, "%.12s\t%s\t%s\t%s %s\t%s\t%s\t%s\t%s\t%s\n", r.Key, r.StartedAt.UTC().Format("2006-01-02 15:04:05"),
					r.Label, r.Engine, r.EngineVersion, r.Workload, state, build(r), r.HostClass, r.Dir)
			}
			return tw.Flush()
		},
	}
	f.filter.add(cmd.Flags())
	return cmd
}

func build(r *history.Run) string {
	c := r.ToolCommit
	if len(c) > 12 {
		c = c[:12]
	}
	return strings.TrimSpace(r.ToolVersion + " " + c)
}

// figureList reads --figure: empty is the default set.
func figureList(given []string) []string {
	var out []string
	for _, f := range given {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// detectFlags are the change-point detector's settings.
type detectFlags struct {
	minEffect  string
	alpha      float64
	minSegment int
}

func (d *detectFlags) add(fs *pflag.FlagSet) {
	fs.StringVar(&d.minEffect, "min-effect", "5%", "smallest shift of a figure's mean reported as a change (a percentage, or a fraction: 0.05)")
	fs.Float64Var(&d.alpha, "alpha", history.DefaultDetect.Alpha, "significance a change must reach (Student's t-test, Bonferroni-corrected for the splits tried)")
	fs.IntVar(&d.minSegment, "min-runs", history.DefaultDetect.MinSegment, "fewest runs on each side of a change")
}

func (d *detectFlags) options() (history.DetectOptions, error) {
	o, err := history.NewDetectOptions(d.minEffect, d.alpha, d.minSegment)
	if err != nil {
		return o, &runner.BadInputError{Err: err}
	}
	return o, nil
}

func newHistoryShowCmd(f *historyFlags) *cobra.Command {
	var figures []string
	var det detectFlags
	var htmlPath string
	cmd := &cobra.Command{
		Use:   "show",
		Short: "Show the series the filters select as tables over time (and --html charts), change points marked",
		Example: `  rumbench history show --label pebble --step l.i1
  rumbench history show --engine rocksdb --figure rate_avg,cpu_us_per_op --since 30d`,
		Args: argsNone,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			o, err := det.options()
			if err != nil {
				return err
			}
			ss, where, err := f.series(ctx)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if len(ss) == 0 {
				fmt.Fprintf(w, "no recorded series match (history %s)\n", where)
				return nil
			}
			figs := figureList(figures)
			var all []*history.Finding
			for i, ser := range ss {
				if i > 0 {
					fmt.Fprintln(w)
				}
				fs := history.Check([]*history.Series{ser}, figs, o)
				all = append(all, fs...)
				showSeries(w, ser, figs, fs)
			}
			if htmlPath != "" {
				out, err := os.Create(htmlPath)
				if err != nil {
					return &runner.BadInputError{Err: fmt.Errorf("--html: %w", err)}
				}
				if err := history.WriteHTML(out, ss, figs, all); err != nil {
					out.Close()
					return fmt.Errorf("write %s: %w", htmlPath, err)
				}
				if err := out.Close(); err != nil {
					return fmt.Errorf("write %s: %w", htmlPath, err)
				}
				fmt.Fprintf(w, "\nHTML: %s\n", htmlPath)
			}
			return nil
		},
	}
	f.filter.add(cmd.Flags())
	cmd.Flags().StringVar(&htmlPath, "html", "", "also write the series as an HTML page: a chart per figure over the runs, the level between change points drawn, and the runs' builds")
	cmd.Flags().StringSliceVar(&figures, "figure", nil, "figures to show (comma list; default "+strings.Join(history.CheckFigures, ",")+")")
	det.add(cmd.Flags())
	return cmd
}

// showSeries prints one series as a table, a row per run, with the change
// points found marked on the run that starts the new level.
func showSeries(w io.Writer, ser *history.Series, figs []string, findings []*history.Finding) {
	if len(figs) == 0 {
		figs = history.CheckFigures
	}
	var cols []string
	for _, fg := range figs {
		for _, p := range ser.Points {
			if _, ok := p.Figures[fg]; ok {
				cols = append(cols, fg)
				break
			}
		}
	}
	marks := map[*history.Point][]string{}
	for _, f := range findings {
		marks[f.At] = append(marks[f.At], fmt.Sprintf("%s %s %+.1f%%", arrow(f), f.Figure, 100*f.Change.Rel()))
	}
	fmt.Fprintf(w, "%s — %d runs\n", ser.Key, len(ser.Points))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "#\tstarted (UTC)\trumbench\tengine\t%s\tchange\t\n", strings.Join(cols, "\t"))
	for i, p := range ser.Points {
		vals := make([]string, len(cols))
		for j, c := range cols {
			vals[j] = "—"
			if v, ok := p.Figures[c]; ok {
				vals[j] = num(v)
			}
		}
		sort.Strings(marks[p])
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t\n", i+1, p.Run.StartedAt.UTC().Format("2006-01-02 15:04"), build(p.Run),
			p.Run.EngineVersion, strings.Join(vals, "\t"), strings.Join(marks[p], ", "))
	}
	tw.Flush()
}

func arrow(f *history.Finding) string {
	if f.Regressed {
		return "REGRESSION"
	}
	return "improvement"
}

func newHistoryExportCmd(f *historyFlags) *cobra.Command {
	var format, out, config string
	var figures []string
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Export one variant's runs as Apache Otava's CSV input (a row per run, a column per step and figure)",
		Long: `Write the runs the filters select as the CSV Apache Otava (formerly Hunter)
reads: a time column, attribute columns (run, rumbench_version,
rumbench_commit, engine_version, hostname) and one metric column per step
and figure ("l.i1.rate_avg"). Otava reads a CSV as one test, so the runs
must be one variant's: one workload, sizes, label and host class.
--otava-config FILE writes an Otava configuration naming the CSV's columns
and each metric's direction.`,
		Example: `  rumbench history export --format otava --label pebble --out pebble.csv --otava-config otava.yaml`,
		Args:    argsNone,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			if format != "otava" {
				return &runner.BadInputError{Err: fmt.Errorf("--format %q: the export format is otava (Apache Otava's CSV)", format)}
			}
			if config != "" && out == "" {
				return &runner.BadInputError{Err: fmt.Errorf("--otava-config names the CSV file: give --out FILE too")}
			}
			ss, _, err := f.series(ctx)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			var file *os.File
			if out != "" {
				if file, err = os.Create(out); err != nil {
					return &runner.BadInputError{Err: fmt.Errorf("--out: %w", err)}
				}
				defer file.Close()
				w = file
			}
			metrics, err := history.ExportOtava(w, ss, figureList(figures))
			if err != nil {
				if file != nil {
					file.Close()
					os.Remove(out)
				}
				return &runner.BadInputError{Err: err}
			}
			if file != nil {
				if err := file.Close(); err != nil {
					return fmt.Errorf("write %s: %w", out, err)
				}
			}
			if config != "" {
				k := ss[0].Key
				test := strings.NewReplacer(" ", "_", "/", "_").Replace(k.Label + "." + k.Workload)
				if err := os.WriteFile(config, []byte(history.OtavaConfig(test, out, metrics)), 0o644); err != nil {
					return &runner.BadInputError{Err: fmt.Errorf("--otava-config: %w", err)}
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "otava", "export format: otava")
	cmd.Flags().StringVar(&out, "out", "", "write the CSV to this file (default standard output)")
	cmd.Flags().StringVar(&config, "otava-config", "", "also write an Otava configuration (YAML) for the CSV to this file")
	cmd.Flags().StringSliceVar(&figures, "figure", nil, "figures to export (comma list; default every figure recorded)")
	f.filter.add(cmd.Flags())
	return cmd
}

func newHistoryCheckCmd(f *historyFlags) *cobra.Command {
	var figures []string
	var det detectFlags
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Find change points in every series; exit 1 when a series' newest runs hold a regression",
		Long: `Look for change points in each figure of each series the filters select
(default figures: ` + strings.Join(history.CheckFigures, ", ") + `), by binary
segmentation with Student's t-test (docs/history.md). A change is a regression
when the figure moved the wrong way: down for rates, up for costs and
latencies. The command exits 1 when the last change of a series' figure is
a regression past --min-effect (its newest runs are at the worse level),
printing the series, the change's position, its runs' builds and what
differs between the runs either side; 0 otherwise. Earlier changes are
listed as well.`,
		Example: `  rumbench history check --label pebble
  rumbench history check --history postgres://bench@db/history --min-effect 3% --since 60d`,
		Args: argsNone,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			o, err := det.options()
			if err != nil {
				return err
			}
			ss, _, err := f.series(ctx)
			if err != nil {
				return err
			}
			return checkHistory(cmd.OutOrStdout(), ss, figureList(figures), o)
		},
	}
	f.filter.add(cmd.Flags())
	cmd.Flags().StringSliceVar(&figures, "figure", nil, "figures to check (comma list; default "+strings.Join(history.CheckFigures, ",")+")")
	det.add(cmd.Flags())
	return cmd
}

// checkHistory prints the change points of ss and fails (exit 1) when a
// series' newest runs hold a regression.
func checkHistory(w io.Writer, ss []*history.Series, figs []string, o history.DetectOptions) error {
	short := 0
	for _, ser := range ss {
		if len(ser.Points) < 2*o.MinSegment {
			short++
		}
	}
	findings := history.Check(ss, figs, o)
	gates := 0
	gated := map[*history.Series]bool{}
	for _, f := range findings {
		var what string
		if f.Gate() {
			what = "REGRESSION"
			gates++
			gated[f.Series] = true
		} else if f.Regressed {
			what = "earlier regression"
		} else {
			what = "improvement"
		}
		fmt.Fprintf(w, "%s: %s\n  %s %s → %s (%+.1f%%, corrected p=%.2g) at run %d of %d, %s (rumbench %s, engine %s %s); run %d was %s\n",
			what, f.Series.Key, f.Figure, num(f.Change.Before), num(f.Change.After), 100*f.Change.Rel(), f.Change.P,
			f.Position, f.Runs, f.At.Run.StartedAt.UTC().Format("2006-01-02 15:04"), build(f.At.Run), f.At.Run.Engine, f.At.Run.EngineVersion,
			f.Position-1, f.Prev.Run.StartedAt.UTC().Format("2006-01-02 15:04"))
		if len(f.Differs) == 0 {
			fmt.Fprintf(w, "  nothing recorded differs between runs %d and %d (same builds, settings and host)\n", f.Position-1, f.Position)
		} else {
			fmt.Fprintf(w, "  differs from run %d: %s\n", f.Position-1, strings.Join(f.Differs, "; "))
		}
	}
	fmt.Fprintf(w, "history check: %d series (%d with fewer than %d runs, too few to judge), %d changes, %d regressions in the newest runs of %d series (min effect %.1f%%, alpha %g)\n",
		len(ss), short, 2*o.MinSegment, len(findings), gates, len(gated), 100*o.MinEffect, o.Alpha)
	if gates > 0 {
		return &exitError{code: exitFailure, err: fmt.Errorf("history check: the newest runs of %d series hold a regression", len(gated))}
	}
	return nil
}

// num prints a figure: whole numbers from 1000 up, four significant
// digits below.
func num(v float64) string {
	if math.Abs(v) >= 1000 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

const defaultHistoryHelp = "$XDG_DATA_HOME/rumbench/history.db (else ~/.local/share/rumbench/history.db)"

// checkRunHistory resolves run's --history ("default": the default file)
// and opens the store once before the run, so that a history that cannot
// be opened is refused before hours of benchmarking, not after.
func checkRunHistory(ctx context.Context, target *string) error {
	if *target == "" {
		return nil
	}
	if *target == "default" {
		p, err := history.DefaultPath()
		if err != nil {
			return &runner.BadInputError{Err: err}
		}
		*target = p
	}
	s, err := openHistory(ctx, *target, true)
	if err != nil {
		return err
	}
	return s.Close()
}

// recordRunHistory records a finished run's bundles in the history named
// by --history (none: nothing to do). An interrupted or failed run is
// recorded too (its incomplete steps stay out of the series); a run that
// succeeded but could not be recorded fails, since a CI job relies on it.
func recordRunHistory(target string, dirs []string, runErr error, w io.Writer) error {
	if target == "" || len(dirs) == 0 {
		return runErr
	}
	// Not the run's context: Ctrl-C ended the run, not the recording.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := history.Open(ctx, target)
	if err == nil {
		defer s.Close()
		err = addToHistory(ctx, s, dirs, "", w)
	}
	if err == nil {
		return runErr
	}
	err = fmt.Errorf("the run's results are saved but could not be recorded in the history: %w (record them later with `rumbench history add`)", err)
	if runErr != nil {
		fmt.Fprintf(w, "rumbench: %v\n", err)
		return runErr
	}
	return err
}

func newHistoryCalibrateCmd(f *historyFlags) *cobra.Command {
	var figures []string
	var det detectFlags
	var shuffles int
	cmd := &cobra.Command{
		Use:   "calibrate",
		Short: "Measure the change-point detector's false alarms per 100 runs on A/A series (one build and config, run again and again)",
		Long: `Judge A/A series with the detector: runs of one build and config on this host
(record them with ` + "`rumbench run --repeat N --history ...`" + `), where every change
point flagged is a false alarm. Series whose runs differ in anything recorded
are left out. It reports the false alarms per 100 runs at the chosen
--alpha/--min-runs for several minimum effects (the chosen one marked), in
the order the runs ran (drift included) and over --shuffles random orders
of the same values (noise alone), then per figure: pick the settings that
keep the rate under the false alarms you accept (docs/history.md).`,
		Example: `  rumbench run --engine pebble --steps l.i0,l.x,l.i1 --repeat 30 --history aa.db
  rumbench history calibrate --history aa.db`,
		Args: argsNone,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			o, err := det.options()
			if err != nil {
				return err
			}
			if shuffles < 0 {
				return &runner.BadInputError{Err: fmt.Errorf("--shuffles %d must be 0 or more", shuffles)}
			}
			ss, _, err := f.series(ctx)
			if err != nil {
				return err
			}
			printCalibration(cmd.OutOrStdout(), history.Calibrate(ss, figureList(figures), o, shuffles), o, shuffles)
			return nil
		},
	}
	f.filter.add(cmd.Flags())
	cmd.Flags().StringSliceVar(&figures, "figure", nil, "figures to judge (comma list; default "+strings.Join(history.CheckFigures, ",")+")")
	cmd.Flags().IntVar(&shuffles, "shuffles", 20, "random orders of each series judged beside the order the runs ran")
	det.add(cmd.Flags())
	return cmd
}

func printCalibration(w io.Writer, c *history.Calibration, o history.DetectOptions, shuffles int) {
	for _, sk := range c.Skipped {
		fmt.Fprintf(w, "left out %s\n", sk)
	}
	runs := 0
	for _, s := range c.Series {
		runs += len(s.Points)
	}
	fmt.Fprintf(w, "A/A calibration: %d series, %d runs in all; alpha %g, at least %d runs a side\n", len(c.Series), runs, o.Alpha, o.MinSegment)
	fmt.Fprintln(w, "(values judged: runs × figures; per 100 runs: change points flagged per 100 runs of one figure; every one is a false alarm)")
	if len(c.Series) == 0 {
		fmt.Fprintln(w, "no A/A series to judge: record repeated runs of one build and config (rumbench run --repeat N --history ...)")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "min effect\tvalues judged\tflagged\tper 100 runs\tshuffled ×%d: flagged\tper 100 runs\t\n", shuffles)
	for _, r := range c.Rows {
		mark := ""
		if r.MinEffect == o.MinEffect {
			mark = " (chosen)"
		}
		fmt.Fprintf(tw, "%g%%%s\t%d\t%d\t%.2f\t%d\t%.2f\t\n", 100*r.MinEffect, mark, r.Points, r.Flagged, r.PerHundred(), r.ShuffledFlagged, r.ShuffledPerHundred())
	}
	tw.Flush()
	var figs []string
	for fg := range c.ByFigure {
		figs = append(figs, fg)
	}
	sort.Strings(figs)
	fmt.Fprintf(w, "per figure at min effect %g%%:\n", 100*o.MinEffect)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, fg := range figs {
		r := c.ByFigure[fg]
		fmt.Fprintf(tw, "%s\t%d runs\t%.2f per 100\tshuffled %.2f per 100\t\n", fg, r.Points, r.PerHundred(), r.ShuffledPerHundred())
	}
	tw.Flush()
}

func newHistoryCompareCmd(f *historyFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "compare BASE NEW",
		Short: "Compare two recorded runs, or two sets of runs, with the report's relative tables and significance",
		Long: `Compare run BASE with run NEW as ` + "`rumbench report`" + ` does: each is a run's key
as ` + "`history list`" + ` prints it (6 characters or more), or a comma list of keys: a
set of runs of one configuration, reported by their medians with 95%
intervals and the Mann–Whitney test of the difference (at least 4 runs a side
to ever be significant). The runs' bundles are read from the directories
recorded with them: the history keeps each run's figures, not its bundle.`,
		Example: `  rumbench history compare 2eb081dbf76b 87d4f2a0c7ed
  rumbench history compare 4445423a20,87d4f2a0c7,c3aa4216e4,82eecaefbd 8e6cd7d6a8,acf721d32d,...`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return &runner.BadInputError{Err: fmt.Errorf("history compare needs two arguments, BASE and NEW: run keys (see history list), or comma lists of them")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			s, err := openHistory(ctx, f.target, false)
			if err != nil {
				return err
			}
			defer s.Close()
			var groups [][]*report.Bundle
			for _, arg := range args {
				var g []*report.Bundle
				for _, key := range strings.Split(arg, ",") {
					r, err := s.RunByPrefix(ctx, strings.TrimSpace(key))
					if err != nil {
						return &runner.BadInputError{Err: err}
					}
					b, err := report.ReadBundle(r.Dir)
					if err != nil {
						return &runner.BadInputError{Err: fmt.Errorf("run %.12s: its bundle cannot be read from %s (%v): the history keeps figures, not bundles; see its figures with history show", r.Key, r.Dir, err)}
					}
					g = append(g, b)
				}
				groups = append(groups, g)
			}
			rep, err := report.BuildGroups(groups, report.Options{})
			if err != nil {
				return &runner.BadInputError{Err: err}
			}
			out := cmd.OutOrStdout()
			if err := rep.Markdown(out); err != nil {
				return err
			}
			fmt.Fprintln(out)
			return rep.WriteVerdict(out)
		},
	}
	return cmd
}
