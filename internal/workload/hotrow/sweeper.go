package hotrow

import (
	"github.com/spf13/pflag"

	"rumbench/internal/figure"
	"rumbench/internal/workload"
)

// Sweep axes of `rumbench sweep hotrow`.
const (
	AxisTables  = "tables"
	AxisClients = "clients"
)

// sweeper runs the hot-row benchmark in `rumbench sweep hotrow`: each cell
// of tables × clients (× variants) is a run of its own, of one hot-row
// cell (--tables T --concurrency C), so a sweep resumes, repeats and
// isolates cell by cell; cells with fewer clients than tables are skipped,
// as in the run's own matrix.
type sweeper struct{}

func (sweeper) SweepAxes() []workload.Axis {
	q := Presets[PresetOrder[0]]
	return []workload.Axis{
		{Name: AxisTables, Prefix: "t", Min: 1, Default: q.Tables, Usage: "table counts of the sweep (comma list); each a cell of its own"},
		{Name: AxisClients, Prefix: "c", Min: 1, Default: q.Concurrency, Usage: "client counts of the sweep (comma list); cells with fewer clients than tables are skipped"},
	}
}

// SweepFlags are the run's flags but its axes (--tables and --concurrency
// are the sweep's --tables and --clients); a cell's configuration is the
// run's of --tables T --concurrency C.
func (sweeper) SweepFlags(fl *pflag.FlagSet) workload.CellConfigurer {
	cell := workload.SweepRunFlags(fl, addFlags, map[string]string{AxisTables: "tables", AxisClients: "concurrency"})
	return func(c workload.Common, at workload.Point) (*workload.Configured, error) {
		if at[AxisClients] < at[AxisTables] {
			return nil, nil
		}
		return cell(c, at)
	}
}

func (sweeper) SweepMatrices() []workload.SweepMatrix {
	step := func(at workload.Point) string { return Cell{Tables: at[AxisTables], Clients: at[AxisClients]}.Name() }
	return []workload.SweepMatrix{
		{Title: "updates/s", Figure: figure.RateAvg, Rows: AxisTables, Columns: AxisClients, Step: step,
			Note: "Hot-row updates/s over the cell's step, as the run's own matrix shows them; skipped: fewer clients than tables."},
		{Title: "CPU µs per update", Figure: figure.CPUPerOp, Rows: AxisTables, Columns: AxisClients, Step: step},
	}
}
