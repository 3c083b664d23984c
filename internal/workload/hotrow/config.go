package hotrow

import (
	"fmt"
	"math"
	"rumbench/internal/workload/retry"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Config sizes a hot-row sweep. Every cell of the sweep (tables ×
// concurrency) runs for CellSeconds on the same loaded tables.
type Config struct {
	// Tables and Concurrency are the sweep's axes; cells with fewer clients
	// than tables are skipped, as in the published matrix.
	Tables      []int   `json:"tables"`
	Concurrency []int   `json:"concurrency"`
	CellSeconds float64 `json:"cell_seconds"`
	// Rows is the size of each table, so a PK search crosses several levels.
	Rows int64 `json:"rows"`
	// HotRows is K, the hot rows per table of the "hot" distribution.
	HotRows int `json:"hot_rows"`
	// Distribution is hot, uniform or zipf:θ (see ParseDistribution).
	Distribution string `json:"distribution"`
	// ClientsSpan is "table" (client i updates table i mod T only) or "all"
	// (every client updates every table in turn).
	ClientsSpan string `json:"clients_span"`
	// PadBytes is the length of each row's pad column.
	PadBytes int `json:"pad_bytes"`
	// RowsPerTx is how many distinct hot rows one transaction updates, in
	// a random order (distribution hot only). 0 or 1: one autocommit
	// update, as before the option existed (and as old bundles say,
	// without the field).
	RowsPerTx int `json:"rows_per_tx,omitempty"`
	// MaxRetries bounds the retries of one update after a transient error
	// (deadlock, lock wait timeout, serialization failure, busy).
	MaxRetries int   `json:"max_retries"`
	Seed       int64 `json:"seed"`
}

// Clients spans.
const (
	SpanTable = "table"
	SpanAll   = "all"
)

// Limits that keep a typo from opening a million connections.
const (
	maxTables      = 1024
	maxConcurrency = 4096
	maxPad         = 1 << 20
)

// DefaultConfig is the full sweep of design §4.2 on 1M-row tables.
func DefaultConfig() Config {
	return Config{
		Tables:       []int{1, 2, 4, 8},
		Concurrency:  []int{1, 2, 4, 8, 16, 32, 64},
		CellSeconds:  60,
		Rows:         1_000_000,
		HotRows:      1,
		Distribution: "hot",
		ClientsSpan:  SpanTable,
		PadBytes:     DefaultPadBytes,
		MaxRetries:   retry.DefaultMaxRetries,
		Seed:         1,
	}
}

// DefaultPadBytes makes a row about 116 logical bytes: realistic enough that
// a leaf page holds tens of rows, not thousands.
const DefaultPadBytes = 100

// Preset is a named sweep shape; flags given explicitly override it.
type Preset struct {
	Name        string
	Description string
	Rows        int64
	CellSeconds float64
	Tables      []int
	Concurrency []int
}

// PresetOrder lists the presets as help shows them, the default first.
var PresetOrder = []string{"quick", "small", "reference"}

// Presets are the named sweep shapes. quick keeps 1 and 64 clients (no
// contention and the most) and drops 8 and 32, so its 14 cells of 3 s plus
// the load of 8 × 100k rows take about 1–2 minutes per engine.
var Presets = map[string]Preset{
	"quick": {
		Name: "quick", Description: "about 1–2 minutes per engine: 100k rows per table, 3 s cells, concurrency 1,2,4,16,64",
		Rows: 100_000, CellSeconds: 3, Tables: []int{1, 2, 4, 8}, Concurrency: []int{1, 2, 4, 16, 64},
	},
	"small": {
		Name: "small", Description: "about 5 minutes per engine: 1M rows per table, 10 s cells, the full sweep",
		Rows: 1_000_000, CellSeconds: 10, Tables: []int{1, 2, 4, 8}, Concurrency: []int{1, 2, 4, 8, 16, 32, 64},
	},
	"reference": {
		Name: "reference", Description: "about 25 minutes per engine: 1M rows per table, 60 s cells, the full sweep",
		Rows: 1_000_000, CellSeconds: 60, Tables: []int{1, 2, 4, 8}, Concurrency: []int{1, 2, 4, 8, 16, 32, 64},
	},
}

// LookupPreset returns the named preset or a one-line error listing them.
func LookupPreset(name string) (Preset, error) {
	p, ok := Presets[name]
	if !ok {
		names := make([]string, 0, len(Presets))
		for n := range Presets {
			names = append(names, n)
		}
		sort.Strings(names)
		return Preset{}, fmt.Errorf("unknown --preset %q: choose one of %s", name, strings.Join(names, ", "))
	}
	return p, nil
}

// DistKind is how an update picks its row.
type DistKind int

const (
	// DistHot picks one of the K hot rows of the table uniformly.
	DistHot DistKind = iota
	// DistUniform picks any row of the table uniformly.
	DistUniform
	// DistZipf picks rows with P(rank k) ∝ 1/k^θ over the whole table.
	DistZipf
)

// Distribution is a parsed --distribution.
type Distribution struct {
	Kind  DistKind
	Theta float64
}

func (d Distribution) String() string {
	switch d.Kind {
	case DistUniform:
		return "uniform"
	case DistZipf:
		return "zipf:" + strconv.FormatFloat(d.Theta, 'g', -1, 64)
	}
	return "hot"
}

// ParseDistribution parses hot, uniform or zipf:θ with θ > 0 (0.99 is the
// YCSB default; larger is more skewed).
func ParseDistribution(s string) (Distribution, error) {
	switch {
	case s == "hot":
		return Distribution{Kind: DistHot}, nil
	case s == "uniform":
		return Distribution{Kind: DistUniform}, nil
	case strings.HasPrefix(s, "zipf:"):
		v := strings.TrimPrefix(s, "zipf:")
		th, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(th) || math.IsInf(th, 0) {
			return Distribution{}, fmt.Errorf("--distribution %q: θ must be a number, e.g. zipf:0.99", s)
		}
		if th <= 0 || th > 100 {
			return Distribution{}, fmt.Errorf("--distribution %q: θ must be > 0 and at most 100, e.g. zipf:0.99", s)
		}
		return Distribution{Kind: DistZipf, Theta: th}, nil
	}
	return Distribution{}, fmt.Errorf("unknown --distribution %q: choose hot, uniform or zipf:θ (θ > 0, e.g. zipf:0.99)", s)
}

// Cell is one point of the sweep.
type Cell struct {
	Tables, Clients int
}

// Name is the cell's step name, e.g. t2c16.
func (c Cell) Name() string { return fmt.Sprintf("t%dc%d", c.Tables, c.Clients) }

// ParseCellName reverses Cell.Name.
func ParseCellName(s string) (Cell, bool) {
	rest, ok := strings.CutPrefix(s, "t")
	if !ok {
		return Cell{}, false
	}
	ts, cs, ok := strings.Cut(rest, "c")
	if !ok {
		return Cell{}, false
	}
	t, err1 := strconv.Atoi(ts)
	c, err2 := strconv.Atoi(cs)
	if err1 != nil || err2 != nil || t < 1 || c < 1 {
		return Cell{}, false
	}
	return Cell{Tables: t, Clients: c}, true
}

// Cells lists the cells that run, tables-major, skipping those with fewer
// clients than tables. The axes must be validated.
func (c *Config) Cells() []Cell {
	ts, cs := sortedUnique(c.Tables), sortedUnique(c.Concurrency)
	var out []Cell
	for _, t := range ts {
		for _, n := range cs {
			if n >= t {
				out = append(out, Cell{Tables: t, Clients: n})
			}
		}
	}
	return out
}

// MaxTables is the number of tables the sweep loads.
func (c *Config) MaxTables() int { return slices.Max(c.Tables) }

func sortedUnique(v []int) []int {
	out := slices.Clone(v)
	slices.Sort(out)
	return slices.Compact(out)
}

// Validate checks the configuration and returns a one-line error naming the
// bad setting and the fix.
func (c *Config) Validate() error {
	if err := checkAxis("--tables", c.Tables, maxTables); err != nil {
		return err
	}
	if err := checkAxis("--concurrency", c.Concurrency, maxConcurrency); err != nil {
		return err
	}
	switch {
	case !(c.CellSeconds > 0) || math.IsInf(c.CellSeconds, 0):
		return fmt.Errorf("--cell-seconds must be positive, got %g", c.CellSeconds)
	case c.Rows < 1:
		return fmt.Errorf("--rows must be at least 1, got %d", c.Rows)
	case c.HotRows < 1:
		return fmt.Errorf("--hot-rows must be at least 1, got %d", c.HotRows)
	case int64(c.HotRows) > c.Rows:
		return fmt.Errorf("--hot-rows (%d) must be at most --rows (%d)", c.HotRows, c.Rows)
	case c.HotRows > 1_000_000:
		return fmt.Errorf("--hot-rows must be at most 1000000, got %d (use --distribution uniform or zipf:θ to spread updates wider)", c.HotRows)
	case c.ClientsSpan != SpanTable && c.ClientsSpan != SpanAll:
		return fmt.Errorf("unknown --clients-span %q: choose table (client i updates table i mod T) or all (every client updates every table)", c.ClientsSpan)
	case c.PadBytes < 0 || c.PadBytes > maxPad:
		return fmt.Errorf("pad bytes must be between 0 and %d, got %d", maxPad, c.PadBytes)
	case c.MaxRetries < 0 || c.MaxRetries > 1000:
		return fmt.Errorf("--max-retries must be between 0 and 1000, got %d", c.MaxRetries)
	case c.RowsPerTx < 0:
		return fmt.Errorf("--rows-per-tx must be at least 1, got %d", c.RowsPerTx)
	}
	dist, err := ParseDistribution(c.Distribution)
	if err != nil {
		return err
	}
	if k := c.TxRows(); k > 1 {
		if dist.Kind != DistHot {
			return fmt.Errorf("--rows-per-tx %d needs --distribution hot (a transaction updates distinct hot rows), not %s: remove --rows-per-tx or use --distribution hot", k, c.Distribution)
		}
		if k > c.HotRows {
			return fmt.Errorf("--rows-per-tx (%d) must be at most --hot-rows (%d): a transaction updates distinct hot rows; raise --hot-rows to at least %d", k, c.HotRows, k)
		}
	}
	if len(c.Cells()) == 0 {
		return fmt.Errorf("no cell to run: every --concurrency value is below every --tables value (cells need at least one client per table)")
	}
	return nil
}

// TxRows is K, the rows one transaction updates (RowsPerTx, where 0 means
// 1).
func (c *Config) TxRows() int { return max(c.RowsPerTx, 1) }

func checkAxis(flag string, v []int, limit int) error {
	if len(v) == 0 {
		return fmt.Errorf("%s is empty: give a comma list, e.g. %s 1,2,4", flag, flag)
	}
	seen := map[int]bool{}
	for _, n := range v {
		if n < 1 || n > limit {
			return fmt.Errorf("%s values must be between 1 and %d, got %d", flag, limit, n)
		}
		if seen[n] {
			return fmt.Errorf("%s lists %d twice", flag, n)
		}
		seen[n] = true
	}
	return nil
}
