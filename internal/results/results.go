// Package results is the versioned run bundle: run.json, one summary per step
// and an interval log, written atomically and read back by reports and merge.
package results

import (
	"time"

	"rumbench/internal/measure"
	"rumbench/internal/model"
)

// SchemaVersion is bumped on any incompatible change of the bundle format.
const SchemaVersion = 1

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
	Tables        []string   `json:"tables,omitempty"`
	Steps         []string   `json:"steps"`
	StartedAt     time.Time  `json:"started_at"`
	FinishedAt    *time.Time `json:"finished_at,omitempty"`
	// Complete is true when every planned step finished.
	Complete bool     `json:"complete"`
	Notes    []string `json:"notes,omitempty"`
}

// Step is the summary of one step (steps/<step>.json). Rates count rows as
// the engine confirmed them, not as requested.
type Step struct {
	Step     string    `json:"step"`
	Complete bool      `json:"complete"`
	Error    string    `json:"error,omitempty"`
	Started  time.Time `json:"started_at"`
	Seconds  float64   `json:"seconds"`
	Interval float64   `json:"interval_s"`

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

	// Rate-limited steps (qr*/qp*): the writers' total target rate, whether
	// ips_avg reached 95% of it, and rows found per query. Also in Details
	// with the missed slots and backlog policy.
	IPSTarget    *float64 `json:"ips_target,omitempty"`
	TargetMet    *bool    `json:"target_met,omitempty"`
	RowsPerQuery *float64 `json:"rows_per_query,omitempty"`

	// Latency per operation type, µs.
	Latency map[string]measure.Latency `json:"latency"`

	// Details holds step-specific results (l.x index build rates, scan
	// results per index, rate-limit targets), documented per step.
	Details map[string]any `json:"details,omitempty"`
	// EngineStats is what the engine reported about itself at step end.
	EngineStats map[string]any `json:"engine_stats,omitempty"`
	// EngineSize is the engine's own size report at step end (bytes, -1 unknown).
	EngineSize int64 `json:"engine_size_bytes"`
	// Metrics are the step's system metrics (docs/metrics.md), when sampled.
	Metrics *Metrics `json:"metrics,omitempty"`
	// Stalls are the step's stalled intervals per operation type.
	Stalls *Stalls `json:"stalls,omitempty"`
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
	// SizeBytes is the data dir's allocated size at step end (st_blocks).
	SizeBytes *int64 `json:"size_bytes"`
	// PSSBytes is the measured processes' memory at step end: PSS summed,
	// or the RSS of the largest process when MemorySource says so.
	PSSBytes     *int64 `json:"pss_bytes"`
	MemorySource string `json:"memory_source,omitempty"`
	// WriteAmp = bytes written / logical bytes inserted; WriteAmpSource
	// says whose bytes: "device" or "process" (no device resolved).
	WriteAmp       *float64 `json:"write_amp"`
	WriteAmpSource string   `json:"write_amp_source,omitempty"`
	// SpaceAmp = SizeBytes / logical live bytes.
	SpaceAmp *float64 `json:"space_amp"`
	// Step totals, KB: the device's and the measured processes' traffic.
	DevRKB       *float64 `json:"dev_rkb"`
	DevWKB       *float64 `json:"dev_wkb"`
	DevDiscardKB *float64 `json:"dev_discard_kb"`
	ProcRKB      *float64 `json:"proc_rkb"`
	ProcWKB      *float64 `json:"proc_wkb"`
	// Step totals the ratios derive from.
	CPUUs                *int64 `json:"cpu_us"`
	ClientCPUUs          *int64 `json:"client_cpu_us"`
	ContextSwitches      *int64 `json:"cs"`
	DevReads             *int64 `json:"dev_reads"`
	DevWrites            *int64 `json:"dev_writes"`
	DevDiscards          *int64 `json:"dev_discards"`
	LogicalBytesInserted *int64 `json:"logical_bytes_inserted"`
	LogicalLiveBytes     *int64 `json:"logical_live_bytes"`
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

// Stalls are a step's stalls for inserts and queries (nil when the step had
// none of that operation): runs of intervals whose rate was below 50% of
// the step's median or zero.
type Stalls struct {
	Insert *measure.Stalls `json:"insert,omitempty"`
	Query  *measure.Stalls `json:"query,omitempty"`
}

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
	Step    string              `json:"step"`
	Index   int                 `json:"i"`
	StartMs int64               `json:"start_ms"`
	Seconds float64             `json:"seconds"`
	Ops     map[string]OpRecord `json:"ops"`
	// System holds raw system-metric deltas for the interval, when sampled.
	System map[string]any `json:"system,omitempty"`
}
