package runner

import (
	"context"
	"testing"

	_ "rumbench/internal/engine/null"
	"rumbench/internal/model"
	"rumbench/internal/results"
	"rumbench/internal/workload/ibench"
)

// TestEstimateClientCPU: an embedded engine's write and query steps get a
// labelled client_cpu_us_per_op_est from the null-engine calibration (a
// positive figure, well under the spec's 40 ns per generated row times a
// generous margin); a step without a client path gets a reason instead;
// server engines and the null engine, whose client CPU is measured, get
// none.
func TestEstimateClientCPU(t *testing.T) {
	ctx := context.Background()
	w, err := ibench.New(ibench.Config{Clients: 1, Rows: 1000, ChurnRows: 100, Indexes: 3, PadMin: 10, PadMax: 20, PadRandomPct: 50, QuerySeconds: 1, Seed: 1, Steps: []string{ibench.StepLoad}})
	if err != nil {
		t.Fatal(err)
	}
	embedded := model.Info{Kind: model.Embedded, Family: model.LSM}
	for _, step := range []string{ibench.StepLoad, ibench.StepChurnBig, ibench.StepQR100} {
		sum := &results.Step{Step: step, Metrics: &results.Metrics{}}
		estimateClientCPU(ctx, w, embedded, sum)
		est := sum.Metrics.ClientCPUUsPerOpEst
		if est == nil || *est <= 0 || *est > 50 {
			t.Errorf("%s: estimate %v µs/op (%v), want a small positive figure", step, est, sum.Metrics.NullReasons)
		}
		if sum.Metrics.ClientCPUEstSource != EstimateSource {
			t.Errorf("%s: source %q", step, sum.Metrics.ClientCPUEstSource)
		}
	}
	sum := &results.Step{Step: ibench.StepIndex, Metrics: &results.Metrics{}}
	estimateClientCPU(ctx, w, embedded, sum)
	if sum.Metrics.ClientCPUUsPerOpEst != nil || sum.Metrics.NullReasons["client_cpu_us_per_op_est"] == "" {
		t.Errorf("l.x: estimate %v, reasons %v", sum.Metrics.ClientCPUUsPerOpEst, sum.Metrics.NullReasons)
	}
	for _, info := range []model.Info{{Kind: model.Server, Family: model.BTree}, {Kind: model.Embedded, Family: model.NoFamily}} {
		sum := &results.Step{Step: ibench.StepLoad, Metrics: &results.Metrics{}}
		estimateClientCPU(ctx, w, info, sum)
		if sum.Metrics.ClientCPUUsPerOpEst != nil || len(sum.Metrics.NullReasons) != 0 {
			t.Errorf("%+v: got an estimate %v", info, sum.Metrics.ClientCPUUsPerOpEst)
		}
	}
}
