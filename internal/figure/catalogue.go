package figure

import (
	"rumbench/internal/measure"
	"rumbench/internal/model"
	"rumbench/internal/results"
	"rumbench/internal/units"
)

// Better says which way a figure improves.
type Better int

const (
	// Neither: the figure describes the work, not how well it was done
	// (rows returned per query).
	Neither Better = iota
	Higher
	Lower
)

// Source is what a step's figures are read from: the step summary, the
// operations its figures are of, and the step's JSON object as stored
// (fields a summary type does not carry).
type Source struct {
	Step *results.Step
	// RateOp is the headline operation (rate, per-operation costs);
	// MainOp the one whose latency is shown; WriteOp a query step's
	// writers ("" otherwise).
	RateOp, MainOp, WriteOp string
	Raw                     map[string]any
}

// Figure is one catalogued figure of a step.
type Figure struct {
	// Key names it in CSV and JSON.
	Key string
	// Unit is what one of it is.
	Unit   string
	Better Better
	// Additive figures of disjoint parts sum to the whole's: rates of
	// work done over the same span, and sizes of separate stores (shards
	// of one server share its store: merge takes its size once).
	// Percentiles, per-operation costs, latencies and amplifications do
	// not add.
	Additive bool
	// Format prints a value of it.
	Format func(float64) string
	// Desc says what it is, for the JSON report's units.
	Desc string
	get  func(Source) Value
}

// Of reads the figure of src; unavailable when the step did not measure it.
func (f *Figure) Of(src Source) Value {
	if src.Step == nil {
		return Value{}
	}
	return f.get(src)
}

// Keys of the catalogue that other packages name.
const (
	RateAvg      = "rate_avg"
	RatePct      = "rate_pct"
	WriteRateAvg = "write_rate_avg"
	WriteRatePct = "write_rate_pct"
	WKBPerWrite  = "wkb_per_write"
	CPUPerOp     = "cpu_us_per_op"
	CPUUserPerOp = "cpu_user_us_per_op"
	CPUSysPerOp  = "cpu_sys_us_per_op"
	FlushesPerOp = "flushes_per_op"
	ClientPerOp  = "client_cpu_us_per_op"
	ClientSysOp  = "client_cpu_sys_us_per_op"
	WKBPerOp     = "wkb_per_op"
	RKBPerOp     = "rkb_per_op"
	ReadsPerOp   = "reads_per_op"
	DiskGB       = "disk_gb"
	LiveGB       = "live_gb"
	PSSGB        = "pss_gb"
	P99Ms        = "p99_ms"
	MaxMs        = "max_ms"
	Sustained    = "sustained_rate"
	// The engine's own counters per unit of the headline operation
	// (metrics.internals_per_op) and the page faults.
	CacheMissPerOp = "cache_miss_per_op"
	LogKBPerOp     = "log_kb_per_op"
	BgWriteKBPerOp = "bg_write_kb_per_op"
	FPIPerOp       = "fpi_per_op"
	StallUsPerOp   = "stall_us_per_op"
	MajFltPerOp    = "majflt_per_op"
	MinFltPerOp    = "minflt_per_op"
)

// Catalogue is every figure of a step, in CSV column order.
var Catalogue = []Figure{
	{RateAvg, "rows/s or operations/s (the rate operation's unit)", Higher, true, units.Num,
		"the step's headline operation (rate_op): done / step seconds, in its unit (rows/s or operations/s); a search step (l.max, LinkBench --request-rate max): the highest rate it sustained (sustained_rate)",
		func(s Source) Value {
			if v := sustained(s.Step); v.OK {
				return v
			}
			return opRate(s.Step, s.RateOp, false)
		}},
	{RatePct, "rows/s or operations/s", Higher, false, units.Num,
		"the headline operation's rate that rate_percentile% of intervals met or exceeded (99 by default); none for a search step, whose intervals ran at the probes' different targets",
		func(s Source) Value {
			if sustained(s.Step).OK {
				return Value{}
			}
			return opRate(s.Step, s.RateOp, true)
		}},
	{WriteRateAvg, "rows/s or operations/s", Higher, true, units.Num,
		"query steps: the writers' rate (write_op) / step seconds",
		func(s Source) Value { return opRate(s.Step, s.WriteOp, false) }},
	{WriteRatePct, "rows/s or operations/s", Higher, false, units.Num,
		"query steps: the writers' rate that rate_percentile% of intervals met or exceeded",
		func(s Source) Value { return opRate(s.Step, s.WriteOp, true) }},
	{WKBPerWrite, "KB per write operation", Lower, false, units.Num,
		"query steps: KB written to storage per unit of the writers' operation",
		func(s Source) Value {
			return perOp(s.Step, s.WriteOp, func(c *results.OpCost) *float64 { return c.WKB })
		}},
	{CPUPerOp, "µs per operation", Lower, false, units.Num,
		"CPU µs (user+sys) of the measured processes per unit of the headline operation",
		func(s Source) Value {
			return perOp(s.Step, s.RateOp, func(c *results.OpCost) *float64 { return c.CPUUs })
		}},
	{CPUUserPerOp, "µs per operation", Lower, false, units.Num,
		"user CPU µs of the measured processes per unit of the headline operation",
		func(s Source) Value {
			return perOp(s.Step, s.RateOp, func(c *results.OpCost) *float64 { return c.CPUUserUs })
		}},
	{CPUSysPerOp, "µs per operation", Lower, false, units.Num,
		"system (kernel) CPU µs of the measured processes per unit of the headline operation",
		func(s Source) Value {
			return perOp(s.Step, s.RateOp, func(c *results.OpCost) *float64 { return c.CPUSysUs })
		}},
	{ClientPerOp, "µs per operation", Lower, false, units.Num,
		"the client's (rumbench's) own CPU µs per unit of the headline operation, when it runs apart from the engine (server engines, null)",
		func(s Source) Value {
			return perOp(s.Step, s.RateOp, func(c *results.OpCost) *float64 { return c.ClientCPUUs })
		}},
	{ClientSysOp, "µs per operation", Lower, false, units.Num,
		"the system (kernel) part of the client's CPU µs per unit of the headline operation",
		func(s Source) Value {
			return perOp(s.Step, s.RateOp, func(c *results.OpCost) *float64 { return c.ClientCPUSysUs })
		}},
	{WKBPerOp, "KB per operation", Lower, false, units.Num,
		"KB written to storage per unit of the headline operation",
		func(s Source) Value {
			return perOp(s.Step, s.RateOp, func(c *results.OpCost) *float64 { return c.WKB })
		}},
	{RKBPerOp, "KB per operation", Lower, false, units.Num,
		"KB read from storage per unit of the headline operation",
		func(s Source) Value {
			return perOp(s.Step, s.RateOp, func(c *results.OpCost) *float64 { return c.RKB })
		}},
	{ReadsPerOp, "reads per operation", Lower, false, units.Num,
		"storage reads per unit of the headline operation",
		func(s Source) Value {
			return perOp(s.Step, s.RateOp, func(c *results.OpCost) *float64 { return c.Reads })
		}},
	{FlushesPerOp, "flushes per operation", Lower, false, units.Num,
		"the device's completed flush requests (what fsync and fdatasync become) per unit of the headline operation",
		func(s Source) Value {
			return perOp(s.Step, s.RateOp, func(c *results.OpCost) *float64 { return c.Flushes })
		}},
	{"rows_per_query", "rows", Neither, false, units.Num,
		"rows returned per query",
		func(s Source) Value { return Num(s.Raw, "rows_per_query") }},
	{DiskGB, "GB", Lower, true, units.Num,
		"on-disk footprint at step end, GB (10^9 bytes): allocated bytes of the data dir, logs included (metrics.disk_source says which dir)",
		func(s Source) Value { return gb(s.Step, func(m *results.Metrics) *int64 { return m.DiskBytes }) }},
	{LiveGB, "GB", Lower, true, units.Num,
		"the engine's live size at step end as the engine reports it, GB (10^9 bytes; docs/metrics.md says what each engine counts)",
		func(s Source) Value {
			if s.Step.EngineSize < 0 {
				return Value{}
			}
			return Known(float64(s.Step.EngineSize) * 1e-9)
		}},
	{PSSGB, "GB", Lower, true, units.Num,
		"memory (PSS) of the measured processes at step end, GB (10^9 bytes)",
		func(s Source) Value { return gb(s.Step, func(m *results.Metrics) *int64 { return m.PSSBytes }) }},
	{"write_amp", "ratio", Lower, false, units.Num,
		"bytes written to storage / logical bytes inserted",
		func(s Source) Value { return metric(s.Step, func(m *results.Metrics) *float64 { return m.WriteAmp }) }},
	{"space_amp", "ratio", Lower, false, units.Num,
		"the engine's live size / logical live bytes",
		func(s Source) Value { return metric(s.Step, func(m *results.Metrics) *float64 { return m.SpaceAmp }) }},
	{P99Ms, "ms", Lower, false, units.Num,
		"99th percentile latency of the step's main operation, ms",
		func(s Source) Value {
			return latencyMs(s.Step, s.MainOp, func(l measure.Latency) int64 { return l.P99 })
		}},
	{MaxMs, "ms", Lower, false, units.Num,
		"largest latency of the step's main operation, ms",
		func(s Source) Value {
			return latencyMs(s.Step, s.MainOp, func(l measure.Latency) int64 { return l.Max })
		}},
	// The insert benchmark's own names (version 1 columns), kept for
	// readers of earlier CSV and JSON reports.
	{"ips_avg", "rows/s", Higher, true, units.Num,
		"rows inserted / step seconds",
		func(s Source) Value { return legacy(s.Step.IPSAvg, s.Step.Inserted > 0 || ran(s.Step, "insert")) }},
	{"ips_99", "rows/s", Higher, false, units.Num,
		"insert rate met or exceeded by 99% of intervals, rows/s",
		func(s Source) Value { return legacy(s.Step.IPS99, s.Step.Inserted > 0 || ran(s.Step, "insert")) }},
	{"dps_avg", "rows/s", Higher, true, units.Num,
		"rows deleted / step seconds",
		func(s Source) Value { return legacy(s.Step.DPSAvg, s.Step.Deleted > 0 || ran(s.Step, "delete")) }},
	{"qps_avg", "queries/s", Higher, true, units.Num,
		"queries / step seconds",
		func(s Source) Value { return legacy(s.Step.QPSAvg, s.Step.Queries > 0 || ran(s.Step, "query")) }},
	{"qps_99", "queries/s", Higher, false, units.Num,
		"query rate met or exceeded by 99% of intervals, queries/s",
		func(s Source) Value { return legacy(s.Step.QPS99, s.Step.Queries > 0 || ran(s.Step, "query")) }},
	{Sustained, "rows/s or operations/s", Higher, false, units.Num,
		"a search step (l.max, LinkBench --request-rate max): the highest target rate whose probe passed (>= 95% achieved, no stalled second, p99 within --slo-p99); details.search has every probe",
		func(s Source) Value { return sustained(s.Step) }},
	{CacheMissPerOp, "pages or blocks per operation", Lower, false, units.Num,
		"the engine's own count of pages or blocks read from outside its cache, per unit of the headline operation (metrics.internals_per_op.cache_miss; docs/metrics.md says which counter per engine)",
		func(s Source) Value { return internal(s.Step, model.InternalCacheMiss, 1) }},
	{LogKBPerOp, "KB per operation", Lower, false, units.Num,
		"KB the engine appended to its WAL, redo log or journal per unit of the headline operation (internals_per_op.log_kb)",
		func(s Source) Value { return internal(s.Step, model.InternalLogKB, 1) }},
	{BgWriteKBPerOp, "KB per operation", Lower, false, units.Num,
		"KB the engine wrote in the background (compaction and flush, checkpoint, page cleaner, doublewrite) per unit of the headline operation (internals_per_op.bg_write_kb)",
		func(s Source) Value { return internal(s.Step, model.InternalBgWriteKB, 1) }},
	{FPIPerOp, "images per operation", Lower, false, units.Num,
		"full-page images written to the log per unit of the headline operation (PostgreSQL; internals_per_op.fpi)",
		func(s Source) Value { return internal(s.Step, model.InternalFPI, 1) }},
	{StallUsPerOp, "µs per operation", Lower, false, units.Num,
		"µs the engine stalled or delayed writes itself per unit of the headline operation (internals_per_op.stall_s × 10^6)",
		func(s Source) Value { return internal(s.Step, model.InternalStallS, 1e6) }},
	{MajFltPerOp, "faults per operation", Lower, false, units.Num,
		"major page faults (each waited for a read) of the measured processes per unit of the headline operation",
		func(s Source) Value {
			return perOp(s.Step, s.RateOp, func(c *results.OpCost) *float64 { return c.MajFlt })
		}},
	{MinFltPerOp, "faults per operation", Lower, false, units.Num,
		"minor page faults of the measured processes per unit of the headline operation",
		func(s Source) Value {
			return perOp(s.Step, s.RateOp, func(c *results.OpCost) *float64 { return c.MinFlt })
		}},
}

// sustained is a search step's sustained rate (details.sustained_rate).
func sustained(s *results.Step) Value { return Num(s.Details, Sustained) }

// internal reads one of the engine's own figures per operation, scaled.
func internal(s *results.Step, name string, scale float64) Value {
	if s.Metrics == nil {
		return Value{}
	}
	v, ok := s.Metrics.InternalsPerOp[name]
	if !ok {
		return Value{}
	}
	return Known(v * scale)
}

var byKey = func() map[string]*Figure {
	m := map[string]*Figure{}
	for i := range Catalogue {
		m[Catalogue[i].Key] = &Catalogue[i]
	}
	return m
}()

// Lookup returns the figure of key.
func Lookup(key string) (*Figure, bool) {
	f, ok := byKey[key]
	return f, ok
}

// Get reads the figure of key from src; it panics on a key the catalogue
// lacks (a programming error, caught by any test that reaches it).
func Get(key string, src Source) Value {
	f, ok := byKey[key]
	if !ok {
		panic("figure: no figure " + key + " in the catalogue")
	}
	return f.Of(src)
}

// Keys are every figure's key, in CSV column order.
func Keys() []string {
	out := make([]string, len(Catalogue))
	for i, f := range Catalogue {
		out[i] = f.Key
	}
	return out
}

// Measured is one figure's value.
type Measured struct {
	Key   string
	Value float64
}

// All are the figures src has a value for, in catalogue order.
func All(src Source) []Measured {
	var out []Measured
	for i := range Catalogue {
		if v := Catalogue[i].Of(src); v.OK {
			out = append(out, Measured{Key: Catalogue[i].Key, Value: v.V})
		}
	}
	return out
}

// QueryStep reports whether s is reported as a query step: time-bounded
// and judged by a read operation (its writers' rate shows beside it).
func QueryStep(s *results.Step, ops measure.Ops) bool {
	main, ok := ops.Lookup(s.MainOp)
	return ok && ops[main].Role == measure.RoleRead && s.Timed()
}

// SourceOf is the source of step s of a run with operations ops: its main
// operation, its table's rate operation and, in a query step, the writers:
// the first write operation, in the workload's order, that ran in it.
func SourceOf(s *results.Step, ops measure.Ops, raw map[string]any) Source {
	src := Source{Step: s, MainOp: s.MainOp, RateOp: s.TableRateOp(), Raw: raw}
	if QueryStep(s, ops) {
		for _, spec := range ops {
			if o := s.Ops[spec.Name]; o != nil && spec.Role == measure.RoleWrite && spec.Judged() && o.Count > 0 {
				src.WriteOp = spec.Name
				break
			}
		}
	}
	return src
}

// OfOp is the source of step s's figures of one operation, rate and
// latency alike (a workload's own table of its operation; s may be nil).
func OfOp(s *results.Step, op string) Source {
	return Source{Step: s, RateOp: op, MainOp: op}
}

// opRate reads an operation's average or percentile rate.
func opRate(s *results.Step, op string, pct bool) Value {
	o := s.Ops[op]
	if o == nil {
		return Value{}
	}
	if pct {
		return Ptr(o.RatePct)
	}
	return Ptr(o.RateAvg)
}

// perOp reads one per-operation cost of op.
func perOp(s *results.Step, op string, f func(*results.OpCost) *float64) Value {
	if s.Metrics == nil {
		return Value{}
	}
	c := s.Metrics.PerOp[op]
	if c == nil {
		return Value{}
	}
	return Ptr(f(c))
}

func metric(s *results.Step, f func(*results.Metrics) *float64) Value {
	if s.Metrics == nil {
		return Value{}
	}
	return Ptr(f(s.Metrics))
}

// gb reads a byte count of the step's metrics in GB (10^9 bytes).
func gb(s *results.Step, f func(*results.Metrics) *int64) Value {
	if s.Metrics == nil {
		return Value{}
	}
	if v := f(s.Metrics); v != nil {
		return Known(float64(*v) * 1e-9)
	}
	return Value{}
}

// ran reports whether op completed in s (its latency has a count).
func ran(s *results.Step, op string) bool {
	l, ok := s.Latency[op]
	return ok && l.Count > 0
}

func latencyMs(s *results.Step, op string, f func(measure.Latency) int64) Value {
	if !ran(s, op) {
		return Value{}
	}
	return Known(float64(f(s.Latency[op])) / 1000)
}

func legacy(v float64, ran bool) Value {
	if !ran {
		return Value{}
	}
	return Known(v)
}
