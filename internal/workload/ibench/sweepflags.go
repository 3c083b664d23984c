package ibench

import (
	"fmt"

	"github.com/spf13/pflag"

	"rumbench/internal/workload"
)

// SweepValues are the insert benchmark's settings of every run of a sweep
// (`rumbench sweep`): the flags are this package's, declared by
// AddSweepFlags with the sweep's wording; the grid's own flags (--indexes,
// --clients, --pad-sizes: lists) are the sweep's.
type SweepValues struct {
	Steps         []string
	Rows          int64
	ChurnRows     int64
	QuerySeconds  float64
	RowsPerCommit int
	PadRandomPct  int
}

// AddSweepFlags declares the insert benchmark's flags of a sweep into v.
func AddSweepFlags(fl *pflag.FlagSet, v *SweepValues) {
	fl.IntVar(&v.PadRandomPct, "pad-random-pct", 50, "percent of the data column that is random characters (the rest compresses)")
	fl.StringSliceVar(&v.Steps, "steps", []string{StepLoadIndexed}, "insert benchmark steps of every run (see rumbench run --help); the matrices show the first load step")
	fl.Int64Var(&v.Rows, "rows", 0, "rows per client loaded "+PresetDefault(func(p Preset) string { return fmt.Sprint(p.Rows) }))
	fl.Int64Var(&v.ChurnRows, "churn-rows", 0, "rows per client for l.i1+l.i2 "+PresetDefault(func(p Preset) string { return fmt.Sprint(p.ChurnRows) }))
	fl.Float64Var(&v.QuerySeconds, "query-seconds", 0, "length of each query step, seconds "+PresetDefault(func(p Preset) string { return fmt.Sprint(p.QuerySeconds) }))
	fl.IntVar(&v.RowsPerCommit, "rows-per-commit", 0, "rows per transaction (default: each step's own)")
}

// PresetDefault is the end of the help of a flag whose default comes from
// the insert benchmark's preset (workload.PresetDefaults), listed from the
// presets themselves.
func PresetDefault(v func(p Preset) string) string {
	return workload.PresetDefaults(PresetOrder, func(n string) string { return v(Presets[n]) })
}

// Sizes are the rows, churn rows and query seconds of a run of preset p:
// each value given (changed reports which, by flag name), else the
// preset's. A run and a sweep size their runs alike.
func (p Preset) Sizes(changed func(string) bool, rows, churn int64, qs float64) (int64, int64, float64) {
	if !changed("rows") {
		rows = p.Rows
	}
	if !changed("churn-rows") {
		churn = p.ChurnRows
	}
	if !changed("query-seconds") {
		qs = p.QuerySeconds
	}
	return rows, churn, qs
}

// CellConfig is the configuration of one sweep cell's run: clients, each
// with its own table, indexes and a fixed pad size, with the sizes
// resolved (Sizes).
func (v *SweepValues) CellConfig(rows, churn int64, qs float64, seed int64, clients, indexes, pad int) Config {
	return Config{Clients: clients, Tables: clients, Rows: rows, ChurnRows: churn, Indexes: indexes, PadMin: pad, PadMax: pad,
		PadRandomPct: v.PadRandomPct, RowsPerCommit: v.RowsPerCommit, QuerySeconds: qs, Seed: seed, Steps: v.Steps}
}
