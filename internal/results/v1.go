// The version 1 compatibility layer: the insert benchmark's fields of
// schema version 1 (a step's inserted, deleted, queries, updates, ips_*,
// dps_*, qps_*; ips_target, target_met and rows_per_query promoted from its
// details; its metrics' cpu_us_per_insert, wkb_per_insert, ...,
// cpu_us_per_query, rkb_per_query). Version 2 bundles still carry them, so
// readers of version 1 fields keep working: they are written here and
// nowhere else (SetLegacyRates, SetLegacyPerOp, SetLegacyTarget,
// PromoteDetails), and read back into the version 2 shape from a version 1
// bundle here too (upgradeV1, upgradeTarget). Version 2 code reads a step's
// operations (Ops, PerOp) and its targets (Targets) through
// internal/figure.

package results

import (
	"fmt"

	"rumbench/internal/measure"
)

// v1Ops is the fixed operation set of schema version 1 bundles, written
// before workloads named their own operations.
var v1Ops = measure.Ops{
	{Name: "insert", Unit: measure.UnitRows, Role: measure.RoleWrite, Short: "i", RateLabel: "IPS"},
	{Name: "delete", Unit: measure.UnitRows, Role: measure.RoleWrite, Short: "d", RateLabel: "DPS"},
	{Name: "query", Unit: measure.UnitOps, Role: measure.RoleRead, Short: "q", RateLabel: "QPS"},
	{Name: "update", Unit: measure.UnitOps, Role: measure.RoleWrite, Short: "u"},
	{Name: "index", Unit: measure.UnitRows, Role: measure.RoleNone, Short: "i", RateLabel: "IPS",
		Note: "IPS.av here is rows indexed per second (the index build); max(ms) is the longest index build of one table."},
	{Name: "scan", Unit: measure.UnitRows, Role: measure.RoleRead},
	{Name: "insert_response", Unit: measure.UnitRows, Role: measure.RoleNone, ResponseOf: "insert"},
	{Name: "delete_response", Unit: measure.UnitRows, Role: measure.RoleNone, ResponseOf: "delete"},
	{Name: "update_response", Unit: measure.UnitOps, Role: measure.RoleNone, ResponseOf: "update"},
}

// v1SizeKeys are the config.ibench fields of a version 1 run.json that set
// how much work a run does.
var v1SizeKeys = []string{"clients", "rows", "churn_rows", "indexes", "pad_min", "pad_max"}

// upgradeV1 fills the version 2 fields of a version 1 bundle from what it
// recorded, so readers handle one shape. Nothing is invented: a figure v1
// did not record stays absent.
func upgradeV1(b *Bundle) {
	b.Run.Ops = v1Ops
	if cfg, ok := b.Run.Config.(map[string]any); ok {
		if ib, ok := cfg["ibench"].(map[string]any); ok {
			b.Run.Sizes = map[string]any{}
			for _, k := range v1SizeKeys {
				if v, ok := ib[k]; ok {
					b.Run.Sizes[k] = v
				}
			}
		}
	}
	querySeconds := 0.0
	if cfg, ok := b.Run.Config.(map[string]any); ok {
		if ib, ok := cfg["ibench"].(map[string]any); ok {
			querySeconds, _ = ib["query_seconds"].(float64)
		}
	}
	for _, s := range b.Steps {
		upgradeStepV1(s, querySeconds)
	}
}

func upgradeStepV1(s *Step, querySeconds float64) {
	s.RatePercentile = 99
	s.Ops = map[string]*OpSummary{}
	for _, spec := range v1Ops {
		l, ok := s.Latency[spec.Name]
		if !ok || l.Count == 0 {
			continue
		}
		o := &OpSummary{Unit: spec.Unit, Role: spec.Role, Count: l.Count, Latency: l}
		switch spec.Name {
		case "insert":
			o.Rows, o.RateAvg, o.RatePct = s.Inserted, ptr(s.IPSAvg), ptr(s.IPS99)
		case "delete":
			o.Rows, o.RateAvg, o.RatePct = s.Deleted, ptr(s.DPSAvg), ptr(s.DPS99)
		case "query":
			o.RateAvg, o.RatePct = ptr(s.QPSAvg), ptr(s.QPS99)
		}
		o.Rate99 = o.RatePct
		s.Ops[spec.Name] = o
	}
	// The main operation, as version 1 reports chose it: queries in query
	// steps, else inserts, else the first operation that ran.
	for _, op := range []string{"query", "insert", "update", "index", "scan", "delete"} {
		if _, ok := s.Ops[op]; ok {
			s.MainOp = op
			break
		}
	}
	if s.MainOp == "" {
		s.MainOp = "insert"
	}
	if s.MainOp == "query" {
		// Every version 1 step with queries was a time-bounded query step.
		s.TimeBoundedS = querySeconds
		if qs, ok := s.Details["query_seconds"].(float64); ok {
			s.TimeBoundedS = qs
		}
		if s.TimeBoundedS <= 0 {
			s.TimeBoundedS = s.Seconds
		}
	}
	// Version 1 tables showed every write step by its inserts, and the
	// index build by its indexed rows/s.
	switch s.MainOp {
	case "query":
	case "index":
		if v, ok := s.Details["indexed_rows_per_s"].(float64); ok && s.Ops["index"] != nil {
			s.Ops["index"].RateAvg = &v
		}
	default:
		s.RateOp = "insert"
	}
	if m := s.Metrics; m != nil && m.PerOp == nil {
		m.PerOp = map[string]*OpCost{}
		if m.CPUUsPerInsert != nil || m.WKBPerInsert != nil {
			m.PerOp["insert"] = &OpCost{CPUUs: m.CPUUsPerInsert, WKB: m.WKBPerInsert, RKB: m.RKBPerInsert, Reads: m.ReadsPerInsert, CS: m.CSPerInsert}
		}
		if m.CPUUsPerQuery != nil || m.RKBPerQuery != nil {
			m.PerOp["query"] = &OpCost{CPUUs: m.CPUUsPerQuery, RKB: m.RKBPerQuery}
		}
	}
}

func ptr(v float64) *float64 { return &v }

// Writing: the version 1 fields a step still carries.

// SetLegacyRates fills the insert benchmark's version 1 fields (inserted,
// deleted, queries, updates, ips_*, dps_*, qps_*) from the operations of
// those names, so readers of version 1 fields keep working; *_99 only when
// the step's rate percentile is 99.
func (s *Step) SetLegacyRates() {
	get := func(name string) (done int64, avg, p99 float64) {
		o, ok := s.Ops[name]
		if !ok {
			return 0, 0, 0
		}
		if o.RateAvg != nil {
			avg = *o.RateAvg
		}
		if o.RatePct != nil && s.RatePercentile == 99 {
			p99 = *o.RatePct
		}
		return o.Done(), avg, p99
	}
	s.Inserted, s.IPSAvg, s.IPS99 = get("insert")
	s.Deleted, s.DPSAvg, s.DPS99 = get("delete")
	s.Queries, s.QPSAvg, s.QPS99 = get("query")
	s.Updates, _, _ = get("update")
}

// SetLegacyPerOp fills the insert benchmark's version 1 metric fields
// (cpu_us_per_insert, wkb_per_insert, ..., cpu_us_per_query, rkb_per_query)
// from PerOp["insert"] and PerOp["query"]; why says, for each that stays
// null, why it does not apply.
func (m *Metrics) SetLegacyPerOp(mainOp string) {
	if m.NullReasons == nil {
		m.NullReasons = map[string]string{}
	}
	set := func(dst **float64, name string, v *float64, op string) {
		*dst = v
		if v == nil {
			if _, known := m.NullReasons[name]; !known {
				if mainOp == op {
					m.NullReasons[name] = "not measured (see null_reasons of the totals)"
				} else {
					m.NullReasons[name] = fmt.Sprintf("%s is not this step's main operation (%s): see per_op", op, mainOp)
				}
			}
		}
	}
	ins, q := m.PerOp["insert"], m.PerOp["query"]
	if ins == nil {
		ins = &OpCost{}
	}
	if q == nil {
		q = &OpCost{}
	}
	set(&m.CPUUsPerInsert, "cpu_us_per_insert", ins.CPUUs, "insert")
	set(&m.CSPerInsert, "cs_per_insert", ins.CS, "insert")
	set(&m.ReadsPerInsert, "reads_per_insert", ins.Reads, "insert")
	set(&m.RKBPerInsert, "rkb_per_insert", ins.RKB, "insert")
	m.WKBPerInsert = ins.WKB
	set(&m.CPUUsPerQuery, "cpu_us_per_query", q.CPUUs, "query")
	set(&m.RKBPerQuery, "rkb_per_query", q.RKB, "query")
}

// PromoteDetails copies rows found per query, which a query step reports
// in Details, to the summary's top-level field, where reports and users
// look for it.
func (s *Step) PromoteDetails() {
	if v, ok := Number(s.Details["rows_per_query"]); ok {
		s.RowsPerQuery = &v
	}
}

// LegacyTargetOp is the operation whose target the version 1 fields hold:
// the insert benchmark's paced writers' inserts.
const LegacyTargetOp = "insert"

// SetLegacyTarget writes the writers' target (that of the insert
// operation) into the version 1 fields, as the step summary carried it
// before Targets: ips_target and target_met, and in Details ips_target,
// target_met, target_met_pct and ips_pct_of_target (docs/design.md). A step
// without an insert target carries none of them.
func (s *Step) SetLegacyTarget() {
	s.IPSTarget, s.TargetMet = nil, nil
	for _, t := range s.Targets {
		if t.Op != LegacyTargetOp {
			continue
		}
		rate, met := t.Rate, t.Met
		s.IPSTarget, s.TargetMet = &rate, &met
		if s.Details == nil {
			s.Details = map[string]any{}
		}
		s.Details["ips_target"] = rate
		s.Details["target_met"] = met
		s.Details["target_met_pct"] = t.MetAtPct
		if t.PctOf != nil {
			s.Details["ips_pct_of_target"] = *t.PctOf
		}
	}
}

// Reading: the one fallback for a step written before Targets.

// upgradeTarget gives a step written before Targets (version 1 bundles, and
// version 2 ones until then) its writers' target from the version 1 fields,
// as their verdict was recorded: the target rate, target_met, and the share
// reached when the step's details hold it.
func upgradeTarget(s *Step) {
	if len(s.Targets) > 0 || s.TargetMet == nil {
		return
	}
	t := Target{Op: LegacyTargetOp, Who: "writers", Unit: measure.UnitRows, Achieved: s.IPSAvg, MetAtPct: TargetMetPct, Met: *s.TargetMet}
	if s.IPSTarget != nil {
		t.Rate = *s.IPSTarget
	}
	if v, ok := Number(s.Details["ips_pct_of_target"]); ok {
		t.PctOf = &v
	}
	if v, ok := Number(s.Details["target_met_pct"]); ok {
		t.MetAtPct = v
	}
	s.Targets = []Target{t}
}
