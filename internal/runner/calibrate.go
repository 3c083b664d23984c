package runner

import (
	"context"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"time"

	"rumbench/internal/engine"
	"rumbench/internal/measure"
	"rumbench/internal/model"
	"rumbench/internal/results"
	"rumbench/internal/units"
	"rumbench/internal/workload"
)

// EstimateSource labels client_cpu_us_per_op_est in every step summary.
const EstimateSource = "ESTIMATE: the step's client path (generate, call the engine, record) run against the null engine at the step's settings, on one locked OS thread, thread CPU per unit, median of 3 runs of at least 20 ms each; the embedded engine's own work is not in it"

// calibrationCPU is how much thread CPU each calibration run takes at
// least, and calibrationRuns how many runs the median is taken over.
const (
	calibrationCPU  = 20 * time.Millisecond
	calibrationRuns = 3
)

// estimateClientCPU sets sum.Metrics.ClientCPUUsPerOpEst for an embedded
// engine's step, whose client CPU cannot be measured apart from the
// engine's: it runs the workload's client path for the step against the
// null engine (docs/metrics.md, Client CPU).
func estimateClientCPU(ctx context.Context, w workload.Workload, info model.Info, sum *results.Step) {
	m := sum.Metrics
	if m == nil || info.Kind != model.Embedded || info.Family == model.NoFamily {
		return
	}
	why := func(s string) {
		if m.NullReasons == nil {
			m.NullReasons = map[string]string{}
		}
		m.NullReasons["client_cpu_us_per_op_est"] = s
	}
	cal, ok := w.(workload.Calibrator)
	if !ok {
		why("the workload has no client path to calibrate")
		return
	}
	run, ok := cal.ClientPath(sum.Step)
	if !ok {
		why("the step has no per-operation client path")
		return
	}
	v, err := calibrate(ctx, w.Ops(), run)
	if err != nil {
		why(err.Error())
		return
	}
	m.ClientCPUUsPerOpEst = &v
	m.ClientCPUEstSource = EstimateSource
}

// calibrate runs the client path against a fresh null engine and returns
// thread CPU µs per unit (median of calibrationRuns runs).
func calibrate(ctx context.Context, ops measure.Ops, run func(context.Context, model.DB, *measure.Recorder, int64) (int64, error)) (float64, error) {
	dir, err := os.MkdirTemp("", "rumbench-calibrate-")
	if err != nil {
		return 0, fmt.Errorf("calibration: %w", err)
	}
	defer os.RemoveAll(dir)
	db, err := engine.Open(ctx, "null", model.Config{DataDir: dir})
	if err != nil {
		return 0, fmt.Errorf("calibration: open the null engine: %w", err)
	}
	defer db.Close()
	clock := measure.NewClock(time.Second, ops)
	rec := clock.Recorder() // not started: records accumulate, as a worker's do between ticks
	// One OS thread runs the whole path, so its CPU time is the path's
	// alone, whatever the engine's own threads do meanwhile.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if _, err := threadCPU(); err != nil {
		return 0, fmt.Errorf("calibration: %w", err)
	}
	var per []float64
	batch := int64(1000)
	for len(per) < calibrationRuns {
		c0, _ := threadCPU()
		n, err := run(ctx, db, rec, batch)
		if err != nil {
			return 0, fmt.Errorf("calibration: %w", err)
		}
		c1, _ := threadCPU()
		used := c1 - c0
		if used < calibrationCPU && batch < 1<<30 {
			// Too short to time: scale up (at most 10x a time) and try again.
			batch *= min(10, max(2, int64(math.Ceil(float64(calibrationCPU)/float64(max(used, time.Microsecond))))))
			continue
		}
		per = append(per, float64(used.Microseconds())/float64(max(n, 1)))
	}
	slices.Sort(per)
	return units.Round(per[len(per)/2], 3), nil
}
