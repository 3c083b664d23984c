package ibench

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"rumbench/internal/workload"
)

// sweepValues are the insert benchmark's settings of every run of a sweep
// (`rumbench sweep`): the flags are this package's, declared by
// addSweepFlags with the sweep's wording; the grid's own flags (--indexes,
// --clients, --pad-sizes: lists) are the sweep's.
type sweepValues struct {
	Steps         []string
	Rows          int64
	ChurnRows     int64
	QuerySeconds  float64
	RowsPerCommit int
	PadRandomPct  int
}

// addSweepFlags declares the insert benchmark's flags of a sweep into v.
func addSweepFlags(fl *pflag.FlagSet, v *sweepValues) {
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

// Sweep axes of the insert benchmark (`rumbench sweep`): the flags, and
// the keys of a cell's workload.Point.
const (
	AxisIndexes  = "indexes"
	AxisPadSizes = "pad-sizes"
	AxisClients  = "clients"
)

// The settings of sweep.json's "shared" that its flat layout lifts to the
// top (SweepFileKeys).
const (
	sharedSteps        = "steps"
	sharedPadRandomPct = "pad_random_pct"
)

// sweeper runs the insert benchmark in `rumbench sweep`. Its grid,
// sweep.json and matrices are the ones the insert benchmark's sweeps have
// always had (indexes, pad_sizes and clients at the top of sweep.json; the
// published matrices), so a sweep resumes and reads back as before.
type sweeper struct{}

// SweepAxes are the grid's axes in the order of a cell's name
// (x3-pad256-c1); --pad-sizes also takes sizes such as 10KB, and
// --indexes defaults from the preset (SweepIndexes).
func (sweeper) SweepAxes() []workload.Axis {
	return []workload.Axis{
		{Name: AxisIndexes, Prefix: "x", Min: 0, Max: 3, ByPreset: func(p string) []int { return SweepIndexes(Presets[p]) },
			Usage: "numbers of secondary indexes (comma list of 0..3) " + PresetDefault(func(p Preset) string { return joinInts(SweepIndexes(p)) })},
		{Name: AxisPadSizes, Prefix: "pad", Min: 0, Default: []int{20}, Parse: parsePadSize, Usage: "sizes of the data column, bytes (comma list; 256, 10KB, 1MB)"},
		{Name: AxisClients, Prefix: "c", Min: 1, Default: []int{1}, Usage: "client counts (comma list), each client with its own table"},
	}
}

// SweepIndexes are the index counts a sweep of preset p runs without
// --indexes: all of 0..3, or for the IO-bound comparison none against all
// three.
func SweepIndexes(p Preset) []int {
	if p.IOBound {
		return []int{0, 3}
	}
	return []int{0, 1, 2, 3}
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

// parsePadSize parses a pad size: 256, 10KB, 1MB (KB, MB are 1024-based).
func parsePadSize(v string) (int, error) {
	s := strings.ToUpper(strings.TrimSpace(v))
	mult := 1
	switch {
	case strings.HasSuffix(s, "KB"):
		mult, s = 1<<10, strings.TrimSuffix(s, "KB")
	case strings.HasSuffix(s, "MB"):
		mult, s = 1<<20, strings.TrimSuffix(s, "MB")
	case strings.HasSuffix(s, "B"):
		s = strings.TrimSuffix(s, "B")
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 {
		return 0, fmt.Errorf("--pad-sizes %q: want sizes such as 256, 10KB or 1MB", v)
	}
	return n * mult, nil
}

func (sweeper) SweepFlags(fl *pflag.FlagSet) workload.CellConfigurer {
	v := &sweepValues{}
	addSweepFlags(fl, v)
	return v.configurer()
}

// SweepMatrices: none of the generic kind; the insert benchmark's are the
// published matrices (SweepTables).
func (sweeper) SweepMatrices() []workload.SweepMatrix { return nil }

// SweepShared are the sizes and settings every cell shares, as sweep.json
// has always recorded them.
func (sweeper) SweepShared(first *workload.Configured) map[string]any {
	cfg := first.Config.(Config)
	return map[string]any{"rows": cfg.Rows, "churn_rows": cfg.ChurnRows, "query_seconds": cfg.QuerySeconds, "rows_per_commit": cfg.RowsPerCommit,
		sharedSteps: cfg.Steps, sharedPadRandomPct: cfg.PadRandomPct}
}

// SweepFileKeys: the axes and two settings at the top of sweep.json.
func (sweeper) SweepFileKeys() []workload.FileKey {
	return []workload.FileKey{{Key: "indexes", Axis: AxisIndexes}, {Key: "pad_sizes", Axis: AxisPadSizes},
		{Key: sharedPadRandomPct, Shared: sharedPadRandomPct}, {Key: "clients", Axis: AxisClients}, {Key: sharedSteps, Shared: sharedSteps}}
}

// SweepBanner: the steps every cell runs.
func (sweeper) SweepBanner(shared map[string]any) string {
	return fmt.Sprintf("steps %v", shared[sharedSteps])
}

// configurer makes a cell's configuration from v: the sizes resolved from
// the preset (Sizes) for those not given, one table per client, the
// cell's indexes and a fixed pad size; the iobound preset sizes the
// engines' memory by the cell's rows.
func (v *sweepValues) configurer() workload.CellConfigurer {
	return func(c workload.Common, at workload.Point) (*workload.Configured, error) {
		preset, err := LookupPreset(c.Preset)
		if err != nil {
			return nil, err
		}
		rows, churn, qs := preset.Sizes(c.Changed, v.Rows, v.ChurnRows, v.QuerySeconds)
		cfg := v.cellConfig(rows, churn, qs, c.Seed, at[AxisClients], at[AxisIndexes], at[AxisPadSizes])
		if err := cfg.Validate(); err != nil {
			return nil, err
		}
		var memory *workload.MemoryPreset
		if preset.IOBound {
			memory = IOBoundMemory(cfg.Rows, cfg.Clients)
		}
		return &workload.Configured{
			Config: cfg,
			Sizes: map[string]any{"clients": cfg.Clients, "rows": cfg.Rows, "churn_rows": cfg.ChurnRows, "indexes": cfg.Indexes,
				"pad_min": cfg.PadMin, "pad_max": cfg.PadMax},
			New:    func() (workload.Workload, error) { return New(cfg) },
			Memory: memory,
		}, nil
	}
}

// cellConfig is the configuration of one sweep cell's run: clients, each
// with its own table, indexes and a fixed pad size, with the sizes
// resolved (Sizes).
func (v *sweepValues) cellConfig(rows, churn int64, qs float64, seed int64, clients, indexes, pad int) Config {
	return Config{Clients: clients, Tables: clients, Rows: rows, ChurnRows: churn, Indexes: indexes, PadMin: pad, PadMax: pad,
		PadRandomPct: v.PadRandomPct, RowsPerCommit: v.RowsPerCommit, QuerySeconds: qs, Seed: seed, Steps: v.Steps}
}
