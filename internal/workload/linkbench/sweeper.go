package linkbench

import (
	"github.com/spf13/pflag"

	"rumbench/internal/figure"
	"rumbench/internal/workload"
)

// Sweep axes of `rumbench sweep linkbench`.
const (
	AxisRequesters = "requesters"
	AxisNodes      = "nodes"
)

// sweeper runs LinkBench in `rumbench sweep linkbench`: each cell of
// requesters × nodes (× variants) is a run of its own (load and request
// steps), configured as `rumbench run linkbench --requesters R --nodes N`.
type sweeper struct{}

func (sweeper) SweepAxes() []workload.Axis {
	return []workload.Axis{
		{Name: AxisRequesters, Prefix: "r", Min: 1, Default: []int{1, 4}, Usage: "request workers of each cell's run (comma list)"},
		{Name: AxisNodes, Prefix: "n", Min: 2, Default: []int{int(Presets[PresetOrder[0]].Nodes)}, Usage: "nodes loaded in each cell's run (comma list)"},
	}
}

func (sweeper) SweepFlags(fl *pflag.FlagSet) workload.CellConfigurer {
	return workload.SweepRunFlags(fl, addFlags, map[string]string{AxisRequesters: "requesters", AxisNodes: "nodes"})
}

func (sweeper) SweepMatrices() []workload.SweepMatrix {
	step := func(workload.Point) string { return StepRequest }
	return []workload.SweepMatrix{
		{Title: "requests/s", Figure: figure.RateAvg, Rows: AxisNodes, Columns: AxisRequesters, Step: step,
			Note: "Requests/s over the request step (each request one transaction, in the run's --mix)."},
		{Title: "KB written per request", Figure: figure.WKBPerOp, Rows: AxisNodes, Columns: AxisRequesters, Step: step},
		{Title: "CPU µs per request", Figure: figure.CPUPerOp, Rows: AxisNodes, Columns: AxisRequesters, Step: step},
	}
}
