package report

import (
	"fmt"
	"sort"
	"strings"

	"rumbench/internal/figure"
	"rumbench/internal/measure"
	"rumbench/internal/units"
)

// whyKeys are the why table's figures: the device's cost per operation,
// then the engine's own counters that explain it, then the page faults.
var whyKeys = []string{figure.WKBPerOp, figure.RKBPerOp, figure.ReadsPerOp,
	figure.LogKBPerOp, figure.BgWriteKBPerOp, figure.CacheMissPerOp, figure.FPIPerOp, figure.StallUsPerOp, figure.MajFltPerOp}

// internalKeys are the engine's own figures among them.
var internalKeys = whyKeys[3:8]

// WhyTable puts, per step and run, the engine's own counters per operation
// beside the device's (docs/metrics.md "The engine's own counters"): so a
// reader sees, e.g., device r/i ≈ buffer-pool misses/i on InnoDB, and what
// share of wKB/i is the log and what the background writes. ok is false
// when no run recorded the engine's counters.
func (r *Report) WhyTable() (Table, bool) {
	per := measure.OpSpec{Short: "op"}
	t := Table{Title: "why: the engine's own counters per operation beside the device's",
		Headers: []string{"step", "run"}, Right: []bool{false, false}}
	for _, k := range whyKeys {
		t.Headers = append(t.Headers, figure.Must(k).Header(per, 0))
		t.Right = append(t.Right, true)
	}
	any := false
	scopes := map[string]bool{}
	for _, sr := range r.Steps {
		for _, row := range sr.Rows {
			if row.Status == StatusNotRun {
				continue
			}
			has := false
			for _, k := range internalKeys {
				has = has || row.Values[k].OK
			}
			if !has {
				continue
			}
			any = true
			line := []string{sr.Name, runName(row.Run)}
			for _, k := range whyKeys {
				line = append(line, row.Values[k].Text(figure.Must(k).Format))
			}
			t.Rows = append(t.Rows, line)
			if st := row.B.Steps[sr.Name]; st != nil && st.Metrics != nil && st.Metrics.InternalsScope != "" {
				scopes[fmt.Sprintf("%s: %s", row.Run.Label, st.Metrics.InternalsScope)] = true
			}
		}
	}
	if !any {
		return t, false
	}
	t.Notes = append(t.Notes, "Per unit of each step's headline operation (as its table: i inserted row, q query). wKB, rKB, r: the device's; logKB: the engine's WAL, redo or journal; bgKB: its background writes (compaction and flush, checkpoint, page cleaner, doublewrite); miss: pages or blocks it read from outside its own cache; fpi: full-page images in its log; stall: time it stalled writes itself; majflt: major page faults of the measured processes. "+units.NA+": the engine has no such counter (docs/metrics.md says which counter feeds which column).")
	var sc []string
	for s := range scopes {
		sc = append(sc, s)
	}
	sort.Strings(sc)
	if len(sc) > 0 {
		t.Notes = append(t.Notes, "Counters that count more than rumbench's tables: "+strings.Join(sc, "; ")+".")
	}
	return t, true
}
