package report

import (
	"encoding/json"
	"fmt"
	"rumbench/internal/results"
)

// probesChart draws a search step's probes (l.max, LinkBench --request-rate
// max): per run, each probe's target and what it achieved, in the order
// they ran, so the rise and the bisection show; nil when no run searched.
func (r *Report) probesChart(sr *StepReport) (*Chart, error) {
	var series []Series
	for _, row := range sr.Rows {
		if row.B == nil {
			continue
		}
		st := row.B.Steps[sr.Name]
		if st == nil || st.Details == nil {
			continue
		}
		res, ok := searchOf(st.Details["search"])
		if !ok || len(res.Probes) == 0 {
			continue
		}
		target := Series{Name: runName(row.Run) + " target"}
		achieved := Series{Name: fmt.Sprintf("%s achieved (sustained %.0f)", runName(row.Run), res.Sustained)}
		for i, p := range res.Probes {
			x := float64(i + 1)
			target.X, target.Y = append(target.X, x), append(target.Y, p.Target)
			achieved.X, achieved.Y = append(achieved.X, x), append(achieved.Y, p.Achieved)
		}
		series = append(series, target, achieved)
	}
	if len(series) == 0 {
		return nil, nil
	}
	return LineChart(fmt.Sprintf("%s: the search's probes, target and achieved rate (a probe passes at >= 95%% of its target, no stalled second, p99 within the SLO)", sr.Name),
		"probe", unitLabel(sr.Rate), nil, series)
}

// searchOf reads a step's details.search, as stored (JSON) or in memory.
func searchOf(v any) (results.Search, bool) {
	if res, ok := v.(results.Search); ok {
		return res, true
	}
	b, err := json.Marshal(v)
	if err != nil || v == nil {
		return results.Search{}, false
	}
	var res results.Search
	return res, json.Unmarshal(b, &res) == nil
}
