package workload

import (
	"rumbench/internal/chart"
	"rumbench/internal/figure"
	"rumbench/internal/stats"
	"rumbench/internal/table"
	"rumbench/internal/units"
)

// SweepRecorder is implemented by a Sweeper that records its sweep in
// sweep.json its own way: the insert benchmark's, whose file predates the
// sweeps of other workloads and is kept as it was, so that its sweeps
// resume and read back as before.
type SweepRecorder interface {
	// SweepShared are the workload's settings every cell shares, for
	// sweep.json's "shared", made from the first cell's configuration
	// (without a SweepRecorder: that configuration, as "first_cell").
	SweepShared(first *Configured) map[string]any
	// SweepFileKeys lay sweep.json out flat: after "engines", these keys
	// in order, then "shared", "repeat" and "variants"; no "workload" or
	// "axes" key, so a sweep.json without "workload" is this workload's.
	SweepFileKeys() []FileKey
	// SweepBanner says what every cell runs, for the sweep's first line,
	// from its shared settings.
	SweepBanner(shared map[string]any) string
}

// FileKey is a top-level key of a flat sweep.json: the values of axis
// Axis, or the shared setting Shared lifted out of "shared".
type FileKey struct {
	Key, Axis, Shared string
}

// SweepReporter is implemented by a Sweeper whose matrices are its own
// rather than SweepMatrices' (the insert benchmark's published ones).
type SweepReporter interface {
	// SweepHeading opens the sweep's markdown report.
	SweepHeading(g SweepGrid) string
	// SweepTables are the matrices; with base, each figure relative to
	// the same cell's of the base sweep.
	SweepTables(g, base SweepGrid) []table.Table
	// SweepCharts lead the sweep's HTML report.
	SweepCharts(g SweepGrid) ([]chart.Chart, error)
}

// FlatSweeper is the workload whose sweep.json is laid out flat
// (SweepRecorder), which a sweep.json without "workload" belongs to; ""
// when no registered workload records its sweeps so.
func FlatSweeper() string {
	for _, n := range Names() {
		if d, _ := Lookup(n); d.Sweeper != nil {
			if _, ok := d.Sweeper.(SweepRecorder); ok {
				return n
			}
		}
	}
	return ""
}

// SweepGrid is a sweep's directory as its matrices read it
// (internal/sweep implements it).
type SweepGrid interface {
	// Dir is the sweep's directory.
	Dir() string
	// Variants are the labels of the variants, in order; RowHeader heads
	// their column ("engine", or "variant" when labelled).
	Variants() []string
	RowHeader() string
	// Values are the values of the axis named.
	Values(axis string) []int
	// Setting is one of sweep.json's shared settings (nil when absent).
	Setting(key string) any
	// Reps is the number of repetitions of each cell; RepsNote explains
	// the figures and marks of a repeated sweep.
	Reps() int
	RepsNote() string
	// CellName is the name of the cell at p.
	CellName(p Point) string
	// Figures are the figures keys of the step of the variant's run of
	// the cell at p: in a repeated sweep, their medians over the
	// repetitions that completed the step.
	Figures(p Point, variant, step string, keys []string) CellFigures
}

// CellNotRun is a cell's status when its bundle or step is missing.
const CellNotRun = "not run"

// CellFigures are one variant's figures of one cell's step.
type CellFigures struct {
	// Complete: the step ran to its end. Status is "ok", "incomplete" or
	// CellNotRun.
	Complete bool
	Status   string
	// Values are the catalogued figures read, by key.
	Values map[string]figure.Value
	// Percentile is the step's rate percentile.
	Percentile float64
	// Missed are the rate targets the step missed (a query step's
	// writers' SLA; in a repeated sweep, any repetition's).
	Missed figure.Targets
	// DBDir: the disk figure is the run's database directory on a server
	// it shares, not a data dir of its own.
	DBDir bool
	// Stats hold each figure over a repeated sweep's repetitions.
	Stats map[string]*stats.Stat
}

// Text prints figure key's value as the catalogue does, n/a when it is
// unavailable.
func (f CellFigures) Text(key string) string { return f.Values[key].Text(figure.Must(key).Format) }

// Ratio is f's figure key over base's, marked ~ (not significant) or ?
// (too few repetitions to tell) when both are over repetitions.
func (f CellFigures) Ratio(base CellFigures, key string) string {
	r := figure.Ratio(f.Values[key], base.Values[key])
	t := r.Text(units.Ratio)
	if sx, sy := f.Stats[key], base.Stats[key]; r.OK && sx != nil && sy != nil {
		t += stats.Compare(sy, sx).Mark()
	}
	return t
}
