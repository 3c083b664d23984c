// Package results is the versioned run bundle: run.json, one summary per step
// and an interval log, written atomically and read back by reports and merge.
// It owns how a step is summarised (summary.go) and how its write and space
// amplification are computed (amplification.go).
package results

import (
	"time"

	"rumbench/internal/measure"
	"rumbench/internal/model"
	"rumbench/internal/steady"
)

// SchemaVersion is bumped on any incompatible change of the bundle format.
// Version 2 added named operations (run.json ops, step ops/main_op,
// metrics.per_op); Read still reads version 1 bundles (see v1.go).
const SchemaVersion = 2

// Details keys through which a step reports the logical size of its data,
// the denominators of write and space amplification (docs/metrics.md).
// Values are int64 bytes.
const (
	// DetailLogicalBytesInserted is the logical bytes of the rows the step
	// inserted (as the workload defines a row's logical size).
	DetailLogicalBytesInserted = "logical_bytes_inserted"
	// DetailLogicalLiveBytes is the logical bytes of the live rows at step
	// end.
	DetailLogicalLiveBytes = "logical_live_bytes"
)

// DetailEngineRetries is the Details key of the writes the engine rolled
// back and rumbench ran again during the step (model.RetryReporter; an
// int64, present for engines that report it, 0 included). The step never
// failed for them; each cost a backoff pause.
const DetailEngineRetries = "engine_retries"

// Number is a numeric detail's value, whatever its Go type: int, int64 or
// uint64 (the sampler's counters) as written, float64 as read back from
// JSON.
func Number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int64:
		return float64(n), true
	case uint64:
		return float64(n), true
	case int:
		return float64(n), true
	}
	return 0, false
}

// DetailInt is the integer detail k of d (see Number).
func DetailInt(d map[string]any, k string) (int64, bool) {
	v, ok := Number(d[k])
	return int64(v), ok
}

// Tool identifies the rumbench build that produced a bundle.
type Tool struct {
	Name      string `json:"name"`
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	GoVersion string `json:"go_version"`
}

// Host describes the machine the run used.
type Host struct {
	Hostname    string `json:"hostname"`
	OS          string `json:"os"`
	Arch        string `json:"arch"`
	Kernel      string `json:"kernel"`
	CPUModel    string `json:"cpu_model"`
	Cores       int    `json:"cores"`
	MemoryBytes int64  `json:"memory_bytes"`
	// Device is the block device under the data dir, when resolved.
	Device string `json:"device,omitempty"`
}

// Run is run.json: everything needed to know what was measured and to
// reproduce it.
type Run struct {
	SchemaVersion int        `json:"schema_version"`
	Tool          Tool       `json:"tool"`
	Workload      string     `json:"workload"`
	Seed          int64      `json:"seed"`
	Config        any        `json:"config"`
	Host          Host       `json:"host"`
	Engine        model.Info `json:"engine"`
	// Label is the variant's label when the run gave the engine one
	// (--engine LABEL=ENGINE); bundles without it are labelled by their
	// engine's name (VariantLabel).
	Label string `json:"label,omitempty"`
	// MeasuredSettings are the engine's settings that decide what is
	// measured, normalised across engines (flush on commit, binlog, torn
	// page protection); reports flag comparisons where they differ.
	MeasuredSettings map[string]string `json:"measured_settings,omitempty"`
	// Ops are the operations the workload records: name, unit, role.
	Ops measure.Ops `json:"ops"`
	// Sizes are the workload settings that decide how much work a run
	// does; reports warn when compared runs differ in them.
	Sizes      map[string]any `json:"sizes,omitempty"`
	Tables     []string       `json:"tables,omitempty"`
	Steps      []string       `json:"steps"`
	StartedAt  time.Time      `json:"started_at"`
	FinishedAt *time.Time     `json:"finished_at,omitempty"`
	// Complete is true when every planned step finished.
	Complete bool `json:"complete"`
	// Tail is what the engine did after its last step: closing it (a final
	// flush or compaction) and stopping a managed server, measured as a
	// step's metrics are; nil when not measured.
	Tail  *Tail    `json:"tail,omitempty"`
	Notes []string `json:"notes,omitempty"`
	// MemoryLimit is the memory cgroup the engine ran in (--memory-limit):
	// its limit and what it used.
	MemoryLimit *MemoryCgroup `json:"memory_limit,omitempty"`
	// DropCaches is true when the kernel's caches were dropped before each
	// step (--drop-caches).
	DropCaches bool `json:"drop_caches,omitempty"`
	// Shard is set in the bundle of one shard of a sharded run (--shard).
	Shard *Shard `json:"shard,omitempty"`
	// MergedFrom is set in a bundle `rumbench merge` made of the shards'.
	MergedFrom *Merged `json:"merged_from,omitempty"`
}

// Shard is one process's part of a sharded run: shard Index of Count, the
// run id the shards' barrier used, and the steps shard 0 ran alone for all
// of them (the other shards' bundles hold an empty summary of those).
type Shard struct {
	Index     int      `json:"index"`
	Count     int      `json:"count"`
	RunID     string   `json:"run_id"`
	OnceSteps []string `json:"once_steps,omitempty"`
}

// Merged says which shard bundles a merged bundle was made of.
type Merged struct {
	RunID  string        `json:"run_id"`
	Count  int           `json:"count"`
	Shards []MergedShard `json:"shards"`
}

// MergedShard is one shard bundle of a merge.
type MergedShard struct {
	Index int    `json:"index"`
	Dir   string `json:"dir"`
	Host  string `json:"host"`
	// Complete is the shard bundle's own run.json complete.
	Complete bool `json:"complete"`
}

// MemoryCgroup is a memory cgroup an engine (its process, page cache
// included) ran in, and what it used: figures are nil when the kernel does
// not report them.
type MemoryCgroup struct {
	LimitBytes int64  `json:"limit_bytes"`
	Path       string `json:"path"`
	Version    int    `json:"cgroup_version"`
	// PeakBytes is the cgroup's peak usage (v1 memory.max_usage_in_bytes,
	// v2 memory.peak), page cache included.
	PeakBytes *int64 `json:"peak_bytes,omitempty"`
	// Failcnt is how often usage hit the limit (v1 memory.failcnt; v2
	// memory.events max): the kernel reclaimed memory to stay under it.
	Failcnt *int64 `json:"failcnt,omitempty"`
	// OOMEvents (v2) and OOMKills count the out-of-memory situations and
	// the processes the OOM killer ended in the cgroup.
	OOMEvents *int64 `json:"oom_events,omitempty"`
	OOMKills  *int64 `json:"oom_kills,omitempty"`
	// CacheBytes and AnonBytes are the page cache and anonymous memory
	// charged to the cgroup when it was read.
	CacheBytes *int64 `json:"cache_bytes,omitempty"`
	AnonBytes  *int64 `json:"anon_bytes,omitempty"`
}

// Step is the summary of one step (steps/<step>.json). Rates count rows as
// the engine confirmed them, not as requested.
type Step struct {
	Step string `json:"step"`
	StepDesc
	// RateOp, set only for version 1 bundles, is the operation whose rate
	// headed the step's table then (inserts in every write step);
	// otherwise the main operation heads it (TableRateOp).
	RateOp   string `json:"-"`
	Complete bool   `json:"complete"`
	// CachesDropped is true when the kernel's caches were dropped just
	// before the step (--drop-caches; not part of its time).
	CachesDropped bool `json:"caches_dropped,omitempty"`
	// Unfinished marks the placeholder written when the step started
	// (Placeholder): the step never ended, its figures are rebuilt from
	// the interval log when the bundle is read.
	Unfinished bool `json:"unfinished,omitempty"`
	// RatePercentile is the percentile of the per-interval rates that
	// ops.*.rate_pct reports (--rate-percentile; 99 by default: IPS.99).
	RatePercentile float64   `json:"rate_percentile"`
	Error          string    `json:"error,omitempty"`
	Started        time.Time `json:"started_at"`
	Seconds        float64   `json:"seconds"`
	Interval       float64   `json:"interval_s"`

	Inserted int64 `json:"inserted"`
	Deleted  int64 `json:"deleted"`
	Queries  int64 `json:"queries,omitempty"`
	Updates  int64 `json:"updates,omitempty"`
	Errors   int64 `json:"errors"`

	// IPSAvg = inserted / seconds; IPS99 = the rate met or exceeded by 99%
	// of intervals. Likewise for deletes (DPS) and queries (QPS).
	IPSAvg float64 `json:"ips_avg"`
	IPS99  float64 `json:"ips_99"`
	DPSAvg float64 `json:"dps_avg,omitempty"`
	DPS99  float64 `json:"dps_99,omitempty"`
	QPSAvg float64 `json:"qps_avg,omitempty"`
	QPS99  float64 `json:"qps_99,omitempty"`

	// The insert benchmark's version 1 fields of its rate-limited steps
	// (qr*/qp*): the writers' total target rate and whether ips_avg reached
	// 95% of it (written from Targets by SetLegacyTarget), and rows found
	// per query. Also in Details with the missed slots and backlog policy.
	IPSTarget    *float64 `json:"ips_target,omitempty"`
	TargetMet    *bool    `json:"target_met,omitempty"`
	RowsPerQuery *float64 `json:"rows_per_query,omitempty"`
	// Targets are the rate targets of the operations the step paced and
	// the verdicts on them (Target), in the order its workload declared
	// them; a step may pace several operations (the insert benchmark's
	// writers, and its queries under --query-rate). Absent when the step
	// paced nothing. Every view reads a step's targets here: a bundle
	// written before them gets its writers' target from the version 1
	// fields when it is read (upgradeTarget).
	Targets []Target `json:"targets,omitempty"`

	// Latency per operation type, µs.
	Latency map[string]measure.Latency `json:"latency"`
	// Ops summarizes every operation the step recorded, by name.
	Ops map[string]*OpSummary `json:"ops"`

	// Details holds step-specific results (l.x index build rates, scan
	// results per index, rate-limit targets), documented per step.
	Details map[string]any `json:"details,omitempty"`
	// EngineStats is what the engine reported about itself at step end.
	EngineStats map[string]any `json:"engine_stats,omitempty"`
	// EngineSize is the engine's live size at step end as the engine itself
	// reports it (model.DB.Size; docs/metrics.md says what each engine
	// counts), bytes, -1 unknown. Space amplification divides it.
	EngineSize int64 `json:"engine_size_bytes"`
	// Metrics are the step's system metrics (docs/metrics.md), when sampled.
	Metrics *Metrics `json:"metrics,omitempty"`
	// Stalls are the step's stalled intervals per operation type.
	Stalls Stalls `json:"stalls,omitempty"`
	// SteadyState is the steady-state rule's record (--steady-state): the
	// intervals before it held are warm-up, left out of every figure.
	SteadyState *steady.Result `json:"steady_state,omitempty"`
	// Profiles are the step's profiles (--profile), when recorded.
	Profiles *Profiles `json:"profiles,omitempty"`
}

// Profiles say where a step's profiles are in its bundle (paths relative to
// it, pprof's format) and what profiling cost: perf's own CPU while the
// step ran, which no figure of the step counts (docs/metrics.md
// "Profiles"). A profile that could not be recorded has a reason instead.
type Profiles struct {
	Client        string `json:"client,omitempty"`
	ClientSamples int    `json:"client_samples,omitempty"`
	ClientWhy     string `json:"client_why,omitempty"`
	Server        string `json:"server,omitempty"`
	ServerSamples int    `json:"server_samples,omitempty"`
	ServerWhy     string `json:"server_why,omitempty"`
	// ServerScope says whose stacks the server profile holds.
	ServerScope string `json:"server_scope,omitempty"`
	PerfCPUUs   *int64 `json:"perf_cpu_us,omitempty"`
}

// StepDesc is what a step is, as its workload declared it: what the core
// needs to judge and report it without knowing the workload.
type StepDesc struct {
	// MainOp is the operation the step is judged by (headline rate,
	// stalls, p99/max, per-operation figures).
	MainOp string `json:"main_op"`
	// TimeBoundedS is the length of a time-bounded step (0: count-bounded).
	TimeBoundedS float64 `json:"time_bounded_s,omitempty"`
	// Work is the main operation's planned amount in a count-bounded step.
	Work int64 `json:"work,omitempty"`
	// WarmupS is the warm-up before a time-bounded step's measurement.
	WarmupS float64 `json:"warmup_s,omitempty"`
	// OpPeriodS holds, for each operation paced in batches on a schedule,
	// the planned time between two of its batches (all workers together):
	// its rate is judged over windows of at least three such periods
	// (measure.StallRule.ForPeriod).
	OpPeriodS map[string]float64 `json:"op_period_s,omitempty"`
}

// TableRateOp is the operation whose rate, per-operation figures and
// stalls head the step's report table.
func (s *Step) TableRateOp() string {
	if s.RateOp != "" {
		return s.RateOp
	}
	return s.MainOp
}

// Timed reports whether the step is time-bounded.
func (d StepDesc) Timed() bool { return d.TimeBoundedS > 0 }

// StallRule is the step's stall rule on a clock of interval seconds: the
// one rule the live line, the summary, the report tables and the chart
// markers share.
func (d StepDesc) StallRule(interval float64) measure.StallRule {
	if !d.Timed() {
		return measure.StallRule{}
	}
	return measure.StallRule{Timed: true, Window: measure.TimedWindow(d.TimeBoundedS, interval)}
}

// OpRule is the stall rule for operation op: the step's rule, judging a
// paced operation over windows of its batch period (OpPeriodS).
func (d StepDesc) OpRule(op string, interval float64) measure.StallRule {
	return d.StallRule(interval).ForPeriod(d.OpPeriodS[op], interval)
}

// OpSummary is one operation's totals in a step. Rates are in the
// operation's unit: rows/s, or successful operations/s.
type OpSummary struct {
	Unit   measure.Unit `json:"unit"`
	Role   measure.Role `json:"role"`
	Count  int64        `json:"count"`
	Rows   int64        `json:"rows"`
	Errors int64        `json:"errors"`
	// RateAvg = done / step seconds; RatePct = the rate that the step's
	// rate_percentile% of the intervals met or exceeded (write and read
	// operations only).
	RateAvg *float64 `json:"rate_avg,omitempty"`
	RatePct *float64 `json:"rate_pct,omitempty"`
	// Rate99 is RatePct under its insert benchmark name, when the
	// percentile is 99 (the default).
	Rate99  *float64        `json:"rate_99,omitempty"`
	Latency measure.Latency `json:"latency"`
}

// Done is what the operation completed in its unit.
func (o *OpSummary) Done() int64 {
	if o.Unit == measure.UnitOps {
		return o.Count - o.Errors
	}
	return o.Rows
}

// OpCost is what one unit of an operation cost in a step: the step's
// totals divided by the operation's count (docs/metrics.md). A null field
// could not be measured or does not apply.
type OpCost struct {
	CPUUs *float64 `json:"cpu_us"`
	// CPUUserUs and CPUSysUs split CPUUs into user and system time.
	CPUUserUs *float64 `json:"cpu_user_us,omitempty"`
	CPUSysUs  *float64 `json:"cpu_sys_us,omitempty"`
	WKB       *float64 `json:"wkb"`
	RKB       *float64 `json:"rkb,omitempty"`
	Reads     *float64 `json:"reads,omitempty"`
	// Flushes are the device's flush requests (cache flushes: what an
	// fsync or fdatasync becomes) per unit.
	Flushes *float64 `json:"flushes,omitempty"`
	CS      *float64 `json:"cs,omitempty"`
	// MinFlt and MajFlt are the measured processes' minor and major page
	// faults per unit.
	MinFlt *float64 `json:"minflt,omitempty"`
	MajFlt *float64 `json:"majflt,omitempty"`
	// ClientCPUUs is the client's own CPU per unit, when measured apart,
	// and its user and system parts.
	ClientCPUUs     *float64 `json:"client_cpu_us,omitempty"`
	ClientCPUUserUs *float64 `json:"client_cpu_user_us,omitempty"`
	ClientCPUSysUs  *float64 `json:"client_cpu_sys_us,omitempty"`
}

// Metrics are a step's system metrics, defined with units and denominators
// in docs/metrics.md. A null field could not be measured; NullReasons says
// why. Per-insert figures divide by inserted rows (write steps), per-query
// figures by queries (query steps); wKB is always per inserted row. KB are
// 1024 bytes.
type Metrics struct {
	CPUUsPerInsert   *float64 `json:"cpu_us_per_insert"`
	CPUUsPerQuery    *float64 `json:"cpu_us_per_query"`
	ReadsPerInsert   *float64 `json:"reads_per_insert"`
	RKBPerInsert     *float64 `json:"rkb_per_insert"`
	WKBPerInsert     *float64 `json:"wkb_per_insert"`
	RKBPerQuery      *float64 `json:"rkb_per_query"`
	CSPerInsert      *float64 `json:"cs_per_insert"`
	ClientCPUUsPerOp *float64 `json:"client_cpu_us_per_op"`
	// ClientCPUUsPerOpEst is, for embedded engines, an ESTIMATE of the
	// client's CPU per unit of the main operation: the step's client path
	// run against the null engine (ClientCPUEstSource says how).
	ClientCPUUsPerOpEst *float64 `json:"client_cpu_us_per_op_est,omitempty"`
	ClientCPUEstSource  string   `json:"client_cpu_est_source,omitempty"`
	// PerOp are the per-operation figures of the step's main operation
	// (every figure) and of its other write operations (KB written), by
	// operation name. The *_per_insert and *_per_query fields above are
	// the insert benchmark's names for PerOp["insert"] and PerOp["query"].
	PerOp map[string]*OpCost `json:"per_op,omitempty"`
	// DiskBytes is the on-disk footprint at step end: the allocated bytes
	// (st_blocks) of what DiskSource names: "data_dir" (an embedded
	// engine's data dir, logs and preallocated files included),
	// "server_data_dir" (a managed server's private data dir, WAL/redo
	// included) or "database_dir" (an unmanaged server's directory of
	// rumbench's database only: its WAL/redo and shared files are not
	// rumbench's alone). Null when unknown, with the reason.
	DiskBytes  *int64 `json:"disk_bytes"`
	DiskSource string `json:"disk_source,omitempty"`
	// LegacySizeBytes is size_bytes of bundles written before disk_bytes:
	// the data dir's allocated size (for a server, its whole data dir).
	// Read only; Read moves it to DiskBytes with DiskSource LegacyDiskSource.
	LegacySizeBytes *int64 `json:"size_bytes,omitempty"`
	// PSSBytes is the measured processes' memory at step end: PSS summed,
	// or the RSS of the largest process when MemorySource says so.
	PSSBytes     *int64 `json:"pss_bytes"`
	MemorySource string `json:"memory_source,omitempty"`
	// WriteAmp = bytes written / logical bytes inserted; WriteAmpSource
	// says whose bytes: "device" or "process" (no device resolved).
	WriteAmp       *float64 `json:"write_amp"`
	WriteAmpSource string   `json:"write_amp_source,omitempty"`
	// SpaceAmp = the engine's live size (Step.EngineSize) / logical live
	// bytes, for every engine (SpaceAmpSource "live"). Bundles written
	// before disk_bytes say "data_dir" (embedded engines: the data dir's
	// allocation) or "engine" (servers: the engine's size).
	SpaceAmp       *float64 `json:"space_amp"`
	SpaceAmpSource string   `json:"space_amp_source,omitempty"`
	// BundleKB is what rumbench's results bundle wrote during the step; it
	// is left out of proc_wkb when rumbench's own process is measured.
	BundleKB *float64 `json:"bundle_kb,omitempty"`
	// Step totals, KB: the device's and the measured processes' traffic.
	// ProcRKB and ProcWKB are the kernel's per-process accounting
	// (/proc/PID/io read_bytes, and write_bytes less
	// cancelled_write_bytes: pages dirtied and not dropped), not device
	// traffic; ProcCancelledKB is what was dropped unwritten.
	DevRKB          *float64 `json:"dev_rkb"`
	DevWKB          *float64 `json:"dev_wkb"`
	DevDiscardKB    *float64 `json:"dev_discard_kb"`
	ProcRKB         *float64 `json:"proc_rkb"`
	ProcWKB         *float64 `json:"proc_wkb"`
	ProcCancelledKB *float64 `json:"proc_cancelled_kb,omitempty"`
	// DevFlushes are the device's completed flush requests in the step,
	// DevFlushMs the time it spent on them (/proc/diskstats, Linux 5.5+).
	DevFlushes *int64 `json:"dev_flushes,omitempty"`
	DevFlushMs *int64 `json:"dev_flush_ms,omitempty"`
	// The end-of-step flush (outside the step's timed window): what the
	// device wrote while the engine's files were flushed, how long it
	// took, and what was flushed ("engine files": every file under the
	// data dir written back with sync_file_range, no device cache flush;
	// "filesystem": syncfs of the data dir's whole filesystem, when the
	// files could not be opened).
	EndFlushWKB   *float64 `json:"end_flush_wkb,omitempty"`
	EndFlushS     *float64 `json:"end_flush_s,omitempty"`
	EndFlushScope string   `json:"end_flush_scope,omitempty"`
	// Step totals the ratios derive from; the CPU totals split into user
	// and system time.
	CPUUs           *int64 `json:"cpu_us"`
	CPUUserUs       *int64 `json:"cpu_user_us,omitempty"`
	CPUSysUs        *int64 `json:"cpu_sys_us,omitempty"`
	ClientCPUUs     *int64 `json:"client_cpu_us"`
	ClientCPUUserUs *int64 `json:"client_cpu_user_us,omitempty"`
	ClientCPUSysUs  *int64 `json:"client_cpu_sys_us,omitempty"`
	// SamplerCPUUs is the system-metrics sampler's own CPU (its reads, on
	// their own OS thread), left out of client_cpu_us and, when rumbench's
	// process is measured, cpu_us.
	SamplerCPUUs    *int64 `json:"sampler_cpu_us"`
	ContextSwitches *int64 `json:"cs"`
	// Page faults of the measured processes (/proc/PID/stat minflt and
	// majflt, reaped children's included): minor ones needed no IO, each
	// major one waited for a read (of a file page or swap).
	MinorFaults          *int64 `json:"minflt,omitempty"`
	MajorFaults          *int64 `json:"majflt,omitempty"`
	DevReads             *int64 `json:"dev_reads"`
	DevWrites            *int64 `json:"dev_writes"`
	DevDiscards          *int64 `json:"dev_discards"`
	LogicalBytesInserted *int64 `json:"logical_bytes_inserted"`
	LogicalLiveBytes     *int64 `json:"logical_live_bytes"`
	// Noise on the host during the step: CPU time of every process
	// outside the measured set and the client (host busy time from
	// /proc/stat minus theirs), and the hypervisor's steal time; µs, and
	// per second in cores (1.0 = one core all the time) over the span
	// from the step's first to its last sample (NoiseSpanS: the step plus
	// its end-of-step flush).
	NoiseSpanS    *float64 `json:"noise_span_s,omitempty"`
	OtherCPUUs    *int64   `json:"other_cpu_us,omitempty"`
	OtherCPUCores *float64 `json:"other_cpu_cores,omitempty"`
	StealUs       *int64   `json:"steal_us,omitempty"`
	StealCores    *float64 `json:"steal_cores,omitempty"`
	// IO noise over the same span: storage bytes the kernel accounted to
	// every process outside the measured set and the client
	// (/proc/PID/io read_bytes, write_bytes less cancelled), KB, from the
	// step's first to its last full sample. OtherIOShare is the larger of
	// other_proc_rkb / dev_rkb and other_proc_wkb / dev_wkb: how much of
	// the device's traffic others may account for (write_bytes counts pages
	// dirtied, so it can exceed what reached the device).
	OtherProcRKB *float64 `json:"other_proc_rkb,omitempty"`
	OtherProcWKB *float64 `json:"other_proc_wkb,omitempty"`
	OtherIOShare *float64 `json:"other_io_share,omitempty"`
	// The engine's own counters over the step (model.InternalsReporter,
	// read before the step's clock starts and after its end-of-step
	// flush): EngineCounters by the engine's own names, Internals by the
	// common names (cache_miss, log_kb, bg_write_kb, fpi, stall_s) and
	// InternalsPerOp those divided by the main operation's count;
	// InternalsScope says when they count more than rumbench's tables
	// (docs/metrics.md "The engine's own counters").
	EngineCounters map[string]float64 `json:"engine_counters,omitempty"`
	Internals      map[string]float64 `json:"internals,omitempty"`
	InternalsPerOp map[string]float64 `json:"internals_per_op,omitempty"`
	InternalsScope string             `json:"internals_scope,omitempty"`
	// ClientCPUSource says how client CPU was measured.
	ClientCPUSource string `json:"client_cpu_source,omitempty"`
	// ProcessSet and Device say what was measured.
	ProcessSet string `json:"process_set"`
	Processes  int    `json:"processes"`
	Device     string `json:"device,omitempty"`
	DeviceDisk string `json:"device_disk,omitempty"`
	// NullReasons maps each null field to why it could not be measured.
	NullReasons map[string]string `json:"null_reasons,omitempty"`
}

// Tail is the work an engine does after its last step, charged to no
// step: from the last step's end to the engine closed (and a managed
// server stopped) and its files flushed. Figures as in Metrics; null with
// the reason when they could not be read (a stopped server's processes).
type Tail struct {
	Seconds     float64           `json:"seconds"`
	DevWKB      *float64          `json:"dev_wkb"`
	DevWrites   *int64            `json:"dev_writes"`
	DevFlushes  *int64            `json:"dev_flushes,omitempty"`
	ProcWKB     *float64          `json:"proc_wkb"`
	CPUUs       *int64            `json:"cpu_us"`
	NullReasons map[string]string `json:"null_reasons,omitempty"`
}

// Stalls are a step's stalls per judged operation (write and read roles),
// by name: runs of intervals whose rate was below 50% of the step's median
// or zero, under the step's stall rule (measure.StallRule). The step's
// main operation's entry is the one tables show.
type Stalls map[string]*measure.Stalls

// OpRecord is one operation type's part of an interval record.
type OpRecord struct {
	Ops    int64   `json:"ops"`
	Rows   int64   `json:"rows"`
	Errors int64   `json:"errors"`
	Rate   float64 `json:"rows_per_s"`
	P50    int64   `json:"p50_us"`
	P99    int64   `json:"p99_us"`
	Max    int64   `json:"max_us"`
	// Hist is the interval's full HdrHistogram (µs), V2-compressed, base64.
	Hist string `json:"hist"`
}

// IntervalRecord is one line of intervals.jsonl.
type IntervalRecord struct {
	Step  string `json:"step"`
	Index int    `json:"i"`
	// Warmup marks an interval of the step's warm-up (--warmup): kept for
	// inspection, not part of the step's figures.
	Warmup  bool                `json:"warmup,omitempty"`
	StartMs int64               `json:"start_ms"`
	Seconds float64             `json:"seconds"`
	Ops     map[string]OpRecord `json:"ops"`
	// System holds raw system-metric deltas for the interval, when sampled.
	System map[string]any `json:"system,omitempty"`
	// Internals are what the engine's own counters (the common names of
	// Metrics.Internals) grew by between the read at the previous tick and
	// the read at this one, InternalsSeconds apart (docs/metrics.md).
	Internals        map[string]float64 `json:"internals,omitempty"`
	InternalsSeconds float64            `json:"internals_s,omitempty"`
}

// VariantLabel is the run's variant label: Label, else the engine's name
// (bundles written before labels, and bare engines).
func (r *Run) VariantLabel() string {
	if r.Label != "" {
		return r.Label
	}
	return r.Engine.Name
}
