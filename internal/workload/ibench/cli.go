package ibench

import (
	"fmt"
	"rumbench/internal/ratesearch"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"rumbench/internal/workload"
)

func init() {
	var presets []workload.Preset
	for _, n := range PresetOrder {
		presets = append(presets, workload.Preset{Name: n, Description: Presets[n].Description, Interval: Presets[n].Interval, StepIntervals: Presets[n].StepIntervals})
	}
	workload.Register(&workload.Definition{
		Name:        "ibench",
		Sweeper:     sweeper{},
		Description: "the insert benchmark: PK-order load, index build, insert+delete churn, queries under paced writes (docs/design.md#steps)",
		Long: `The insert benchmark (the default workload). Steps: l.i0 loads --rows rows per
client in PK order (100 per transaction), l.x builds --indexes secondary
indexes, l.i1 and l.i2 insert --churn-rows rows per client (50 and 5 per
transaction, 4/5 and 1/5 of the total) while a deleter removes as many of
the oldest rows, qr*/qp* run range/point queries for --query-seconds while
writers insert and delete at 100/500/1000 rows/s per client, and the
optional scan reads every index in full. Write steps are judged by their
insert rate, query steps by their query rate.`,
		// Figures of a shard's own clients and tables (query.go, load.go, ibench.go).
		AdditiveDetails: []string{"tables", "indexed_rows", "ips_target", "target_rows", "missed_txns", "missed_rows",
			"delete_missed_txns", "delete_catchup_rows", "table_growth_rows", "live_rows", "backlog_txns", "rows_found",
			"query_rate_target", "query_target_count", "query_missed"},
		Example: `  rumbench run
  rumbench run --engine pebble --preset small --indexes 1
  rumbench run ibench --engine sqlite --steps l.i0,l.x --rows 1000000 --data-dir /data/rb --engine-opt cache_size=1GB`,
		Presets: presets,
		Flags:   addFlags,
	})
}

// flagValues are the insert benchmark's own flags.
type flagValues struct {
	steps         []string
	clients       int
	rows          int64
	churnRows     int64
	indexes       int
	padMin        int
	padMax        int
	padRandomPct  int
	rowsPerCommit int
	querySeconds  float64
	churnSeconds  float64
	maintain      bool
	deletes       bool
	tables        int
	uniqueIndex   string
	quiescePause  string
	quiesceMax    time.Duration
	arrivals      string
	queryRate     float64
	search        ratesearch.Settings
}

func addFlags(fl *pflag.FlagSet) workload.Configurer {
	f := &flagValues{}
	// Defaults that depend on the preset are listed from the preset table
	// itself, so the help says what a run without the flag does.
	def := PresetDefault
	fl.StringSliceVar(&f.steps, "steps", nil, "steps to run, in order (comma list of "+strings.Join(StepOrder, ",")+"), or a named list: "+stepListHelp()+" "+
		def(func(p Preset) string { return strings.Join(p.Steps(), ",") }))
	fl.IntVar(&f.clients, "clients", 0, "clients, each with its own table pi1..piN "+def(func(p Preset) string { return fmt.Sprint(p.Clients) }))
	fl.Int64Var(&f.rows, "rows", 0, "rows per client loaded by l.i0 "+def(func(p Preset) string { return fmt.Sprint(p.Rows) }))
	fl.Int64Var(&f.churnRows, "churn-rows", 0, "rows per client inserted (and as many deleted) by l.i1+l.i2, split 4/5 and 1/5 "+def(func(p Preset) string { return fmt.Sprint(p.ChurnRows) }))
	fl.Float64Var(&f.churnSeconds, "churn-seconds", 0, "run l.i1 and l.i2 each for this many seconds instead of --churn-rows, inserting and deleting until the time is up (the table size stays constant): time-bounded steps, to which --warmup and --steady-state apply; 0: --churn-rows "+def(func(p Preset) string { return fmt.Sprint(p.ChurnSeconds) }))
	fl.IntVar(&f.indexes, "indexes", 0, "secondary indexes built by l.x, 0..3: marketsegment, registersegment, pdc "+def(func(p Preset) string { return fmt.Sprint(p.Indexes) }))
	fl.IntVar(&f.padMin, "pad-min", 10, "minimum length of the data column, bytes")
	fl.IntVar(&f.padMax, "pad-max", 20, "maximum length of the data column, bytes")
	fl.IntVar(&f.padRandomPct, "pad-random-pct", 50, "percent of the data column that is random characters (the rest repeats one character)")
	fl.IntVar(&f.rowsPerCommit, "rows-per-commit", 0, "rows per transaction for every write step (default 0: the step's own: l.i0 100, l.i1 50, l.i2 5)")
	fl.Float64Var(&f.querySeconds, "query-seconds", 0, "length of each query step, seconds "+def(func(p Preset) string { return fmt.Sprint(p.QuerySeconds) }))
	fl.IntVar(&f.tables, "tables", 0, "tables pi1..piN the clients share, client i writing table i mod N (default: one per client). A table's clients take their batches' primary keys from one sequence per table, so keys stay unique and increasing per table, batches of different clients interleave in PK order, and every insert lands at the table's right edge (one hot spot per table, as with auto-increment); one deleter per table keeps its size constant")
	fl.StringVar(&f.uniqueIndex, "unique-index", "", "make this secondary index unique ("+strings.Join(IndexNames, ", ")+"; it must be among --indexes): transactionid is appended to its columns so the generated rows keep it unique, and every insert checks it first (a read per row, on an LSM too)")
	fl.BoolVar(&f.deletes, "deletes", true, "l.i1, l.i2 and the query steps delete as many of the oldest rows as they insert (the table size stays constant); false: they only insert and the table grows")
	fl.StringVar(&f.quiescePause, "quiesce-pause", "auto", "pause after the maint step's quiesce, a duration, or auto: 1s in the quick preset, else the insert benchmark's min(1200, 60 + rows/1M) s over the rows loaded")
	fl.DurationVar(&f.quiesceMax, "quiesce-max", 0, "longest wait of the maint step for the engine's background work (compaction, flush, purge, checkpoint) to finish "+def(func(p Preset) string { return QuiesceMax(p.Name).String() }))
	fl.StringVar(&f.arrivals, "arrivals", "fixed", "how the paced operations' intended starts are spaced (the query steps' writers and deleters, and their queries with --query-rate): fixed (one every period, the insert benchmark's) or poisson (independent arrivals at the same mean rate); latency is measured from each intended start either way")
	fl.Float64Var(&f.queryRate, "query-rate", 0, "queries per second per client in the query steps, on a schedule (open loop: a stall shows as latency from each query's intended start, op query_response, instead of lowering the load); 0: each client queries as fast as it can (closed loop)")
	ratesearch.AddFlags(fl, &f.search, "step l.max", "rows/s over all clients", DefaultSearchStart)
	fl.BoolVar(&f.maintain, "maintain", true, "run the engine's maintenance (step maint: vacuum, flush, checkpoint) between the write and the query steps; false drops maint from --steps")
	return func(c workload.Common) (*workload.Configured, error) { return f.configure(c) }
}

func (f *flagValues) configure(c workload.Common) (*workload.Configured, error) {
	preset, err := LookupPreset(c.Preset)
	if err != nil {
		return nil, err
	}
	pick := func(name string, explicit, def int64) int64 {
		if c.Changed(name) {
			return explicit
		}
		return def
	}
	steps := f.steps
	if !c.Changed("steps") {
		steps = preset.Steps()
	}
	rows, churn, qs := preset.Sizes(c.Changed, f.rows, f.churnRows, f.querySeconds)
	cfg := Config{
		Clients:       int(pick("clients", int64(f.clients), int64(preset.Clients))),
		Rows:          rows,
		ChurnRows:     churn,
		Indexes:       int(pick("indexes", int64(f.indexes), int64(preset.Indexes))),
		Tables:        f.tables,
		UniqueIndex:   f.uniqueIndex,
		PadMin:        f.padMin,
		PadMax:        f.padMax,
		PadRandomPct:  f.padRandomPct,
		RowsPerCommit: f.rowsPerCommit,
		QuerySeconds:  qs,
		Seed:          c.Seed,
		Steps:         expandStepLists(steps),
		NoDeletes:     !f.deletes,
		Arrivals:      f.arrivals,
		QueryRate:     f.queryRate,
		Settings:      f.search,
		WarmupSeconds: c.Warmup.Seconds(),
	}
	// Recorded in run.json only when they matter: the insert benchmark's
	// own spacing is fixed, and the search's settings belong to l.max.
	if cfg.Arrivals == "fixed" {
		cfg.Arrivals = ""
	}
	if !slices.Contains(cfg.Steps, StepMax) {
		cfg.Settings = ratesearch.Settings{}
	}
	if !f.maintain {
		var steps []string
		for _, s := range cfg.Steps {
			if s != StepMaintain {
				steps = append(steps, s)
			}
		}
		cfg.Steps = steps
	}
	if !c.Changed("interval") {
		for step, d := range preset.StepIntervals {
			if slices.Contains(cfg.Steps, step) {
				if cfg.StepIntervalS == nil {
					cfg.StepIntervalS = map[string]float64{}
				}
				cfg.StepIntervalS[step] = d.Seconds()
			}
		}
	}
	cfg.ChurnSeconds = preset.ChurnSeconds
	if c.Changed("churn-seconds") {
		cfg.ChurnSeconds = f.churnSeconds
	}
	pause := QuiescePause(c.Preset, int64(cfg.Clients)*cfg.Rows)
	if f.quiescePause != "auto" {
		d, err := time.ParseDuration(f.quiescePause)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("--quiesce-pause %q is not a duration: give e.g. 30s, 0 for none, or auto", f.quiescePause)
		}
		pause = d
	}
	cfg.QuiescePauseSeconds = pause.Seconds()
	cfg.QuiesceMaxSeconds = QuiesceMax(c.Preset).Seconds()
	if c.Changed("quiesce-max") {
		if f.quiesceMax <= 0 {
			return nil, fmt.Errorf("--quiesce-max must be positive, got %s", f.quiesceMax)
		}
		cfg.QuiesceMaxSeconds = f.quiesceMax.Seconds()
	}
	if c.Changed("tables") && f.tables < 1 {
		return nil, fmt.Errorf("--tables must be at least 1, got %d", f.tables)
	}
	if c.Changed("rows-per-commit") && f.rowsPerCommit < 1 {
		return nil, fmt.Errorf("--rows-per-commit must be at least 1, got %d", f.rowsPerCommit)
	}
	if _, err := New(cfg); err != nil {
		return nil, err
	}
	var memory *workload.MemoryPreset
	if preset.IOBound {
		memory = IOBoundMemory(cfg.Rows, cfg.Clients)
	}
	sizes := map[string]any{
		"clients": cfg.Clients, "rows": cfg.Rows, "churn_rows": cfg.ChurnRows, "indexes": cfg.Indexes,
		"pad_min": cfg.PadMin, "pad_max": cfg.PadMax,
	}
	if cfg.NoDeletes {
		sizes["deletes"] = false
	}
	if cfg.ChurnSeconds > 0 {
		sizes["churn_seconds"] = cfg.ChurnSeconds
	}
	// Recorded in run.json's config always; a size (which reports compare
	// across runs) only when clients share tables.
	cfg.Tables = cfg.NumTables()
	if cfg.Tables != cfg.Clients {
		sizes["tables"] = cfg.Tables
	}
	if cfg.UniqueIndex != "" {
		sizes["unique_index"] = cfg.UniqueIndex
	}
	banner := fmt.Sprintf("%d clients x %d rows", cfg.Clients, cfg.Rows)
	if cfg.NumTables() != cfg.Clients {
		banner += fmt.Sprintf(" on %d tables", cfg.NumTables())
	}
	if cfg.ChurnSeconds > 0 {
		banner += fmt.Sprintf(", churn %gs per step, %d indexes", cfg.ChurnSeconds, cfg.Indexes)
	} else {
		banner += fmt.Sprintf(", churn %d rows/client, %d indexes", cfg.ChurnRows, cfg.Indexes)
	}
	if cfg.UniqueIndex != "" {
		banner += " (" + cfg.UniqueIndex + " unique)"
	}
	if cfg.NoDeletes {
		banner += ", no deletes (tables grow)"
	}
	return &workload.Configured{
		Config: cfg,
		Sizes:  sizes,
		Banner: banner,
		New:    func() (workload.Workload, error) { return New(cfg) },
		Memory: memory,
	}, nil
}

// StepLists are named step lists for --steps.
var StepLists = map[string][]string{
	// @default: the published sequence with a PK-only load and a separate
	// index build.
	"@default": DefaultSteps,
	// @indexed: the load maintains the secondary indexes (l.i0x), as in the
	// published insert-rate-by-index-count results; then the same steps.
	"@indexed": append([]string{StepLoadIndexed}, DefaultSteps[2:]...),
	// @load: the two loads' shapes only.
	"@load": {StepLoad, StepIndex},
}

func stepListHelp() string {
	var out []string
	for _, n := range []string{"@default", "@indexed", "@load"} {
		out = append(out, n+" = "+strings.Join(StepLists[n], ","))
	}
	return strings.Join(out, "; ")
}

// expandStepLists replaces named lists in steps by their steps.
func expandStepLists(steps []string) []string {
	var out []string
	for _, s := range steps {
		if l, ok := StepLists[s]; ok {
			out = append(out, l...)
			continue
		}
		out = append(out, s)
	}
	return out
}
