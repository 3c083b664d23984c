package hotrow

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"rumbench/internal/results"
	"rumbench/internal/workload"
)

func init() {
	var presets []workload.Preset
	for _, n := range PresetOrder {
		presets = append(presets, workload.Preset{Name: n, Description: Presets[n].Description})
	}
	workload.Register(&workload.Definition{
		Name:        "hotrow",
		Description: "hot-row updates: the tables x concurrency updates/s matrix (docs/hotrow.md)",
		Long: `The hot-row sweep updates one hot row per table (counter = counter + 1 by
PK, autocommit) in a sweep of --tables x --concurrency cells after loading the
tables, and prints the updates/s matrix per engine and relative to the first.
Each cell is a time-bounded step judged by its update rate (stalls, CPU and
KB written per update). --rows-per-tx K > 1 makes each transaction update K
distinct hot rows in a random order instead (BEGIN, K updates, COMMIT), so
transactions can deadlock or time out waiting for each other's row locks.
Presets: quick 100k rows/table, 3 s cells, concurrency 1,2,4,16,64 (about
1-2 minutes per engine); small 1M rows, 10 s cells; reference 1M rows, 60 s
cells (both concurrency 1..64).`,
		Example: `  rumbench run hotrow --engine pebble,sqlite,bbolt
  rumbench run hotrow --tables 1,8 --concurrency 8,64 --distribution zipf:0.99
  rumbench run hotrow --engine innodb --hot-rows 4 --rows-per-tx 2`,
		Presets: presets,
		Flags:   addFlags,
		Report:  printReport,
		Table:   ReportTable,
		Sweeper: sweeper{},
	})
}

// flagValues are the hot-row sweep's own flags.
type flagValues struct {
	rows         int64
	tables       []int
	concurrency  []int
	cellSeconds  float64
	hotRows      int
	distribution string
	clientsSpan  string
	maxRetries   int
	rowsPerTx    int
}

func addFlags(fl *pflag.FlagSet) workload.Configurer {
	def := DefaultConfig()
	h := &flagValues{}
	// Listed from the preset table, so help says what a run does.
	pd := func(v func(p Preset) string) string {
		return workload.PresetDefaults(PresetOrder, func(n string) string { return v(Presets[n]) })
	}
	fl.Int64Var(&h.rows, "rows", 0, "rows per table "+pd(func(p Preset) string { return fmt.Sprint(p.Rows) }))
	fl.IntSliceVar(&h.tables, "tables", nil, "table counts of the sweep, comma list "+pd(func(p Preset) string { return joinInts(p.Tables) }))
	fl.IntSliceVar(&h.concurrency, "concurrency", nil, "client counts of the sweep, comma list; cells with fewer clients than tables are skipped "+pd(func(p Preset) string { return joinInts(p.Concurrency) }))
	fl.Float64Var(&h.cellSeconds, "cell-seconds", 0, "length of each tables x concurrency cell, seconds "+pd(func(p Preset) string { return fmt.Sprint(p.CellSeconds) }))
	fl.IntVar(&h.hotRows, "hot-rows", def.HotRows, "hot rows per table, chosen uniformly from the table by --seed; each update picks one (--distribution hot only)")
	fl.StringVar(&h.distribution, "distribution", def.Distribution, "which row an update picks: hot (one of --hot-rows per table), uniform (any row), zipf:θ (θ > 0 over the whole table, e.g. zipf:0.99)")
	fl.StringVar(&h.clientsSpan, "clients-span", def.ClientsSpan, "table (client i updates table i mod T) or all (every client updates every table in turn)")
	fl.IntVar(&h.rowsPerTx, "rows-per-tx", 1, "hot rows one transaction updates (BEGIN, one update per row, COMMIT), distinct and in a random order so transactions can deadlock; at most --hot-rows; 1 is one autocommit update")
	fl.IntVar(&h.maxRetries, "max-retries", def.MaxRetries, "retries of an update after a deadlock, lock wait timeout, serialization failure or busy error, with backoff")
	return func(c workload.Common) (*workload.Configured, error) { return h.configure(c) }
}

func (h *flagValues) configure(c workload.Common) (*workload.Configured, error) {
	preset, err := LookupPreset(c.Preset)
	if err != nil {
		return nil, err
	}
	if c.Warmup > 0 {
		return nil, fmt.Errorf("--warmup is not supported by the hot-row sweep yet (its cells are measured from their first update): remove it")
	}
	cfg := DefaultConfig()
	cfg.Rows, cfg.CellSeconds = preset.Rows, preset.CellSeconds
	cfg.Tables, cfg.Concurrency = preset.Tables, preset.Concurrency
	if c.Changed("rows") {
		cfg.Rows = h.rows
	}
	if c.Changed("tables") {
		cfg.Tables = h.tables
	}
	if c.Changed("concurrency") {
		cfg.Concurrency = h.concurrency
	}
	if c.Changed("cell-seconds") {
		cfg.CellSeconds = h.cellSeconds
	}
	cfg.HotRows, cfg.Distribution, cfg.ClientsSpan = h.hotRows, h.distribution, h.clientsSpan
	cfg.MaxRetries, cfg.Seed = h.maxRetries, c.Seed
	if h.rowsPerTx < 1 {
		return nil, fmt.Errorf("--rows-per-tx must be at least 1, got %d (1 is one autocommit update per transaction)", h.rowsPerTx)
	}
	if h.rowsPerTx > 1 {
		cfg.RowsPerTx = h.rowsPerTx
	}
	if _, err := New(cfg); err != nil {
		return nil, err
	}
	if c.Changed("hot-rows") && cfg.Distribution != "hot" {
		return nil, fmt.Errorf("--hot-rows applies to --distribution hot only, not %s: remove it", cfg.Distribution)
	}
	nCells := len(cfg.Cells())
	sizes := map[string]any{
		"rows": cfg.Rows, "tables": joinInts(cfg.Tables), "concurrency": joinInts(cfg.Concurrency),
		"cell_seconds": cfg.CellSeconds, "distribution": cfg.Distribution, "clients_span": cfg.ClientsSpan,
	}
	banner := fmt.Sprintf("tables %s x concurrency %s (%d cells of %gs), %d rows/table, distribution %s, clients span %s",
		joinInts(cfg.Tables), joinInts(cfg.Concurrency), nCells, cfg.CellSeconds, cfg.Rows, cfg.Distribution, cfg.ClientsSpan)
	if k := cfg.TxRows(); k > 1 {
		// Only then, so a run of single updates describes itself as before.
		sizes["rows_per_tx"], sizes["hot_rows"] = k, cfg.HotRows
		banner += fmt.Sprintf(", %d of %d hot rows per transaction", k, cfg.HotRows)
	}
	return &workload.Configured{
		Config: cfg,
		Sizes:  sizes,
		Banner: banner,
		New:    func() (workload.Workload, error) { return New(cfg) },
	}, nil
}

// printReport prints the matrices at the end of a run and keeps them next
// to the bundles as hotrow.md.
func printReport(w io.Writer, bundles []*results.Bundle, out string) error {
	if len(bundles) == 0 {
		return nil
	}
	var sb strings.Builder
	if err := HotrowReport(&sb, bundles); err != nil {
		return fmt.Errorf("render the hot-row report: %w", err)
	}
	io.WriteString(w, sb.String())
	path := filepath.Join(out, "hotrow.md")
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	fmt.Fprintf(w, "\nhot-row report: %s\n", path)
	return nil
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ",")
}
