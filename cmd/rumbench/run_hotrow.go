package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"rumbench/internal/report"
	"rumbench/internal/results"
	"rumbench/internal/workload"
	"rumbench/internal/workload/hotrow"
)

// hotrowFlagValues are the flags only --workload hotrow reads.
type hotrowFlagValues struct {
	tables       []int
	concurrency  []int
	cellSeconds  float64
	hotRows      int
	distribution string
	clientsSpan  string
	maxRetries   int
}

// hotrowFlags are the names of those flags, rejected for other workloads.
var hotrowFlags = []string{"tables", "concurrency", "cell-seconds", "hot-rows", "distribution", "clients-span", "max-retries"}

func addHotrowFlags(fl *pflag.FlagSet, h *hotrowFlagValues) {
	def := hotrow.DefaultConfig()
	fl.IntSliceVar(&h.tables, "tables", nil, "hotrow: table counts of the sweep, comma list (default: from the preset; 1,2,4,8)")
	fl.IntSliceVar(&h.concurrency, "concurrency", nil, "hotrow: client counts of the sweep, comma list; cells with fewer clients than tables are skipped (default: from the preset; quick 1,2,4,16,64, else 1,2,4,8,16,32,64)")
	fl.Float64Var(&h.cellSeconds, "cell-seconds", 0, "hotrow: length of each tables x concurrency cell, seconds (default: from the preset; quick: 3)")
	fl.IntVar(&h.hotRows, "hot-rows", def.HotRows, "hotrow: hot rows per table, chosen uniformly from the table by --seed; each update picks one (--distribution hot only)")
	fl.StringVar(&h.distribution, "distribution", def.Distribution, "hotrow: which row an update picks: hot (one of --hot-rows per table), uniform (any row), zipf:θ (θ > 0 over the whole table, e.g. zipf:0.99)")
	fl.StringVar(&h.clientsSpan, "clients-span", def.ClientsSpan, "hotrow: table (client i updates table i mod T) or all (every client updates every table in turn)")
	fl.IntVar(&h.maxRetries, "max-retries", def.MaxRetries, "hotrow: retries of an update after a deadlock, lock wait timeout, serialization failure or busy error, with backoff")
}

// hotrowRun builds the hot-row sweep's configuration from the flags.
func hotrowRun(cmd *cobra.Command, f *runFlags) (*workloadRun, error) {
	if err := rejectFlags(cmd, ibenchFlags, "ibench", "hotrow"); err != nil {
		return nil, err
	}
	preset, err := hotrow.LookupPreset(f.preset)
	if err != nil {
		return nil, err
	}
	fl := cmd.Flags()
	h := &f.hot
	cfg := hotrow.DefaultConfig()
	cfg.Rows, cfg.CellSeconds = preset.Rows, preset.CellSeconds
	cfg.Tables, cfg.Concurrency = preset.Tables, preset.Concurrency
	if fl.Changed("rows") {
		cfg.Rows = f.rows
	}
	if fl.Changed("tables") {
		cfg.Tables = h.tables
	}
	if fl.Changed("concurrency") {
		cfg.Concurrency = h.concurrency
	}
	if fl.Changed("cell-seconds") {
		cfg.CellSeconds = h.cellSeconds
	}
	cfg.HotRows, cfg.Distribution, cfg.ClientsSpan = h.hotRows, h.distribution, h.clientsSpan
	cfg.MaxRetries, cfg.Seed = h.maxRetries, f.seed
	if err := checkInterval(f); err != nil {
		return nil, err
	}
	if _, err := hotrow.New(cfg); err != nil {
		return nil, err
	}
	if fl.Changed("hot-rows") && cfg.Distribution != "hot" {
		return nil, fmt.Errorf("--hot-rows applies to --distribution hot only, not %s: remove it", cfg.Distribution)
	}
	nCells := len(cfg.Cells())
	return &workloadRun{
		config: cfg,
		banner: fmt.Sprintf("tables %s x concurrency %s (%d cells of %gs), %d rows/table, distribution %s, clients span %s",
			joinInts(cfg.Tables), joinInts(cfg.Concurrency), nCells, cfg.CellSeconds, cfg.Rows, cfg.Distribution, cfg.ClientsSpan),
		newWorkload: func() (workload.Workload, error) { return hotrow.New(cfg) },
		report: func(w io.Writer, bundles []*results.Bundle, out string) {
			if len(bundles) == 0 {
				return
			}
			var sb strings.Builder
			if err := report.HotrowReport(&sb, bundles); err != nil {
				fmt.Fprintf(w, "rumbench: could not render the hot-row report: %v\n", err)
				return
			}
			io.WriteString(w, sb.String())
			// The matrices are also kept next to the bundles; failing to
			// save this view must not fail the run.
			path := filepath.Join(out, "hotrow.md")
			if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
				fmt.Fprintf(w, "rumbench: could not write %s: %v\n", path, err)
				return
			}
			fmt.Fprintf(w, "\nhot-row report: %s\n", path)
		},
	}, nil
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ",")
}
