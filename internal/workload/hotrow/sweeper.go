package hotrow

import (
	"fmt"

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

// SweepFlags declares the run's own flags but its axes (--tables and
// --concurrency are the sweep's --tables and --clients); a cell's
// configuration is the run's of --tables T --concurrency C.
func (sweeper) SweepFlags(fl *pflag.FlagSet) workload.CellConfigurer {
	def := DefaultConfig()
	h := &flagValues{}
	pd := func(v func(p Preset) string) string {
		return workload.PresetDefaults(PresetOrder, func(n string) string { return v(Presets[n]) })
	}
	fl.Int64Var(&h.rows, "rows", 0, "rows per table "+pd(func(p Preset) string { return fmt.Sprint(p.Rows) }))
	fl.Float64Var(&h.cellSeconds, "cell-seconds", 0, "length of each cell's updates, seconds "+pd(func(p Preset) string { return fmt.Sprint(p.CellSeconds) }))
	fl.IntVar(&h.hotRows, "hot-rows", def.HotRows, "hot rows per table, chosen uniformly from the table by --seed; each update picks one (--distribution hot only)")
	fl.StringVar(&h.distribution, "distribution", def.Distribution, "which row an update picks: hot (one of --hot-rows per table), uniform (any row), zipf:θ (θ > 0 over the whole table, e.g. zipf:0.99)")
	fl.StringVar(&h.clientsSpan, "clients-span", def.ClientsSpan, "table (client i updates table i mod T) or all (every client updates every table in turn)")
	fl.IntVar(&h.rowsPerTx, "rows-per-tx", 1, "hot rows one transaction updates (BEGIN, one update per row, COMMIT); at most --hot-rows; 1 is one autocommit update")
	fl.IntVar(&h.maxRetries, "max-retries", def.MaxRetries, "retries of an update after a deadlock, lock wait timeout, serialization failure or busy error, with backoff")
	return func(c workload.Common, at workload.Point) (*workload.Configured, error) {
		t, n := at[AxisTables], at[AxisClients]
		if n < t {
			return nil, nil
		}
		cell := *h
		cell.tables, cell.concurrency = []int{t}, []int{n}
		changed := c.Changed
		c.Changed = func(name string) bool { return name == "tables" || name == "concurrency" || changed(name) }
		return cell.configure(c)
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
