package results

import "rumbench/internal/measure"

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
