package report

import (
	"fmt"
	"math"

	"rumbench/internal/model"
)

// internalsChart draws, per interval, the engine's own log and background
// writes in KB/s (intervals.jsonl's internals over internals_s) for each
// run of a step, so a drop in throughput can be read beside the
// checkpoint, flush or compaction burst of the same seconds. Nil when no
// run recorded them.
func (r *Report) internalsChart(sr *StepReport) (*Chart, error) {
	var series []Series
	for _, row := range sr.Rows {
		if row.Status == StatusNotRun {
			continue
		}
		ivs := stepIntervals(row.B.Intervals, sr.Name)
		if len(ivs) == 0 {
			continue
		}
		t0 := ivs[0].StartMs
		for _, f := range []struct{ key, what string }{{model.InternalLogKB, "log"}, {model.InternalBgWriteKB, "background writes"}} {
			s := Series{Name: fmt.Sprintf("%s %s", runName(row.Run), f.what)}
			have := false
			for _, iv := range ivs {
				v, ok := iv.Internals[f.key]
				y := math.NaN()
				if ok && iv.InternalsSeconds > 0 {
					y, have = v/iv.InternalsSeconds, true
				}
				s.X = append(s.X, float64(iv.StartMs-t0)/1000+iv.Seconds)
				s.Y = append(s.Y, y)
			}
			if have {
				series = append(series, s)
			}
		}
	}
	if len(series) == 0 {
		return nil, nil
	}
	return LineChart(fmt.Sprintf("%s: the engine's own log and background writes per interval", sr.Name),
		"seconds since step start", "KB/s", nil, series)
}
