package ibench

import (
	"fmt"
	"rumbench/internal/measure"
	"rumbench/internal/ratesearch"
	"strings"
)

// Config sizes a run. Sizes are per client; the clients are spread over
// Tables tables (client i writes table i mod Tables), by default one each.
type Config struct {
	Clients int `json:"clients"`
	// Tables is the number of tables pi1..piN (0: one per client).
	Tables        int     `json:"tables"`
	UniqueIndex   string  `json:"unique_index,omitempty"`
	Rows          int64   `json:"rows"`
	ChurnRows     int64   `json:"churn_rows"`
	Indexes       int     `json:"indexes"`
	PadMin        int     `json:"pad_min"`
	PadMax        int     `json:"pad_max"`
	PadRandomPct  int     `json:"pad_random_pct"`
	RowsPerCommit int     `json:"rows_per_commit"`
	QuerySeconds  float64 `json:"query_seconds"`
	// ChurnSeconds, when positive, runs l.i1 and l.i2 each for that long
	// instead of for ChurnRows (--churn-seconds): time-bounded, so the
	// steady-state rule applies to them.
	ChurnSeconds float64 `json:"churn_seconds,omitempty"`
	// NoDeletes runs l.i1, l.i2 and the query steps without their deleters
	// (--deletes=false): the table grows by what they insert.
	NoDeletes bool `json:"no_deletes,omitempty"`
	// Arrivals spaces the paced operations' intended starts: "" or
	// "fixed" (one every period), "poisson" (measure.PoissonArrivals).
	Arrivals string `json:"arrivals,omitempty"`
	// QueryRate, when positive, paces each client's queries in the query
	// steps at this many per second (open loop: latency from each query's
	// intended start, op query_response); 0 runs them in a closed loop.
	QueryRate float64 `json:"query_rate,omitempty"`
	// Search holds the l.max search's settings (StepMax; the first
	// target is in rows/s over all clients).
	ratesearch.Settings
	// WarmupSeconds is run before each query step\'s measured
	// QuerySeconds (--warmup).
	WarmupSeconds float64 `json:"warmup_s,omitempty"`
	// StepIntervalS are the steps measured at an interval of their own
	// (seconds; the preset's StepIntervals unless --interval is given).
	StepIntervalS map[string]float64 `json:"step_interval_s,omitempty"`
	// QuiesceMaxSeconds bounds the maint step's wait for the engine's
	// background work; QuiescePauseSeconds is the pause after it
	// (--quiesce-max, --quiesce-pause).
	QuiesceMaxSeconds   float64  `json:"quiesce_max_s,omitempty"`
	QuiescePauseSeconds float64  `json:"quiesce_pause_s,omitempty"`
	Seed                int64    `json:"seed"`
	Steps               []string `json:"steps"`
}

// Limits that keep a mistyped size from exhausting the client's memory.
const (
	MaxRowsPerCommit = 1_000_000
	MaxClients       = 1024
	MaxQuerySeconds  = 1e7
	maxBatchBytes    = 4 << 30
)

// Validate checks the configuration and returns a one-line error naming the
// bad setting and the fix.
func (c *Config) Validate() error {
	switch {
	case c.Clients < 1:
		return fmt.Errorf("--clients must be at least 1, got %d", c.Clients)
	case c.Rows < 1:
		return fmt.Errorf("--rows must be at least 1, got %d", c.Rows)
	case c.ChurnRows < 0:
		return fmt.Errorf("--churn-rows must be 0 or more, got %d", c.ChurnRows)
	case c.Indexes < 0 || c.Indexes > MaxIndexes:
		return fmt.Errorf("--indexes must be between 0 and %d, got %d", MaxIndexes, c.Indexes)
	case c.PadMin < 0:
		return fmt.Errorf("--pad-min must be 0 or more, got %d", c.PadMin)
	case c.PadMax < c.PadMin:
		return fmt.Errorf("--pad-max (%d) must be at least --pad-min (%d)", c.PadMax, c.PadMin)
	case c.PadMax > 16<<20:
		return fmt.Errorf("--pad-max must be at most 16 MiB, got %d", c.PadMax)
	case c.PadRandomPct < 0 || c.PadRandomPct > 100:
		return fmt.Errorf("--pad-random-pct must be between 0 and 100, got %d", c.PadRandomPct)
	case c.RowsPerCommit < 0:
		return fmt.Errorf("--rows-per-commit must be at least 1 (or 0 for the step defaults), got %d", c.RowsPerCommit)
	case c.RowsPerCommit > MaxRowsPerCommit:
		return fmt.Errorf("--rows-per-commit must be at most %d, got %d", MaxRowsPerCommit, c.RowsPerCommit)
	case c.Tables < 0 || c.Tables > c.Clients:
		return fmt.Errorf("--tables must be between 1 and --clients (%d), got %d", c.Clients, c.Tables)
	case c.Clients > MaxClients:
		return fmt.Errorf("--clients must be at most %d (one table and several connections each), got %d", MaxClients, c.Clients)
	case c.QuerySeconds > MaxQuerySeconds:
		return fmt.Errorf("--query-seconds must be at most %d, got %g", int64(MaxQuerySeconds), c.QuerySeconds)
	case c.QueryRate < 0:
		return fmt.Errorf("--query-rate must be 0 (a closed loop) or more, got %g", c.QueryRate)
	case c.ChurnSeconds < 0 || c.ChurnSeconds > MaxQuerySeconds:
		return fmt.Errorf("--churn-seconds must be between 0 (run --churn-rows) and %d, got %g", int64(MaxQuerySeconds), c.ChurnSeconds)
	}
	// Each writer keeps one transaction's rows in memory with room for the
	// largest pad: refuse a combination the client could not hold.
	bs := int64(loadBatch)
	if c.RowsPerCommit > 0 {
		bs = int64(c.RowsPerCommit)
	}
	if need := bs * int64(c.PadMax) * int64(c.Clients); need > maxBatchBytes {
		return fmt.Errorf("%d clients × %d rows per transaction × --pad-max %d bytes needs %d MiB of client memory (limit %d MiB): lower --rows-per-commit, --pad-max or --clients",
			c.Clients, bs, c.PadMax, need>>20, maxBatchBytes>>20)
	}
	if err := checkUniqueIndex(c.UniqueIndex, c.Indexes); err != nil {
		return err
	}
	if len(c.Steps) == 0 {
		return fmt.Errorf("no steps given: use --steps with some of %s", strings.Join(StepOrder, ","))
	}
	has := map[string]bool{}
	for _, s := range c.Steps {
		has[s] = true
	}
	if _, err := measure.ParseArrivals(c.Arrivals); err != nil {
		return err
	}
	if c.QueryRate > 0 {
		queries := false
		for s := range has {
			_, q := querySteps[s]
			queries = queries || q
		}
		if !queries {
			return fmt.Errorf("--query-rate paces the query steps, and --steps has none (%s): add one of qr100,qp100,... or drop --query-rate", strings.Join(c.Steps, ","))
		}
	}
	for step, sec := range c.StepIntervalS {
		if !has[step] || sec <= 0 {
			return fmt.Errorf("step_interval_s: %s %gs is not a positive interval of a step of this run (%s)", step, sec, strings.Join(c.Steps, ","))
		}
	}
	if has[StepMax] {
		if err := c.Settings.Validate(); err != nil {
			return err
		}
	}
	if has[StepLoadIndexed] && has[StepIndex] {
		return fmt.Errorf("steps %s and %s both build the secondary indexes: %s creates them before loading, so drop %s", StepLoadIndexed, StepIndex, StepLoadIndexed, StepIndex)
	}
	if has[StepLoadIndexed] && has[StepLoad] {
		return fmt.Errorf("steps %s and %s both load the tables: choose one", StepLoad, StepLoadIndexed)
	}
	for _, s := range c.Steps {
		if _, ok := stepFuncs[s]; !ok {
			return fmt.Errorf("unknown step %q: choose from %s", s, strings.Join(StepOrder, ","))
		}
		if _, ok := querySteps[s]; ok && !(c.QuerySeconds > 0) {
			return fmt.Errorf("--query-seconds must be positive for step %s, got %g", s, c.QuerySeconds)
		}
	}
	return nil
}

// NumTables is the number of tables: Tables, or one per client.
func (c *Config) NumTables() int {
	if c.Tables > 0 {
		return c.Tables
	}
	return c.Clients
}
