package runner

import (
	"fmt"
	"math"

	"rumbench/internal/measure"
	"rumbench/internal/results"
	"rumbench/internal/steady"
	"rumbench/internal/workload"
)

// SizeWatcher is implemented by observers that can read the on-disk size
// of the engine's data at each interval (the system-metrics sampler): the
// steady-state rule's size metric. The runner turns it on, before a step
// starts, only for a step the size rule watches, as walking the data dir
// every interval has a cost the other steps should not pay.
type SizeWatcher interface {
	// WatchSize makes the observer add the size (bytes, key
	// SysDiskBytes) to the system figures of the step's warm-up
	// intervals.
	WatchSize(on bool)
}

// SysDiskBytes is the interval's system figure a SizeWatcher adds.
const SysDiskBytes = "disk_bytes"

// checkSteady refuses a steady-state rule a step it applies to cannot
// measure: write amplification needs the logical bytes a step inserts.
func checkSteady(sp *steady.Spec, workloadName string, steps []workload.Step) error {
	if sp == nil || sp.Metric != steady.WriteAmp {
		return nil
	}
	for _, st := range steps {
		if st.Steady && st.LogicalBytes == nil {
			return &BadInputError{Err: fmt.Errorf("--steady-state %s: %s's step %s inserts no rows, so its write amplification is undefined: use rate, wkb or size", sp, workloadName, st.Name)}
		}
	}
	return nil
}

// steadySeries is the per-interval value a step's steady-state rule
// watches (docs/metrics.md, Steady state). The rate is the clock's own;
// wkb, wamp and size come from the system figures the interval hook
// collects after the tick, so the clock judges them one interval behind.
// observe and value run on the clock's goroutine only.
type steadySeries struct {
	metric  steady.Metric
	main    measure.Op
	logical func() int64 // the step's logical bytes inserted so far
	lastLog int64
	ratio   steady.Ratio
	last    float64 // the last interval's value, NaN once used or when none
	// source is whose bytes written the wkb and wamp rules watched.
	source string
}

// written is an interval's bytes written: the device's when it was
// read, else the measured processes' (write_bytes less cancelled, which
// counts pages dirtied rather than bytes reaching the device).
func (s *steadySeries) written(sys map[string]any) (float64, bool) {
	if sect, ok := results.Number(sys["dev_write_sectors"]); ok {
		s.source = sourceOf(s.source, "device")
		return sect * 512, true
	}
	if wb, ok := results.Number(sys["proc_write_bytes"]); ok {
		s.source = sourceOf(s.source, "process")
		return wb, true
	}
	return 0, false
}

// sourceOf is the series' source after an interval from src: one name,
// or both when intervals differed.
func sourceOf(was, src string) string {
	switch was {
	case "", src:
		return src
	default:
		return "device and process"
	}
}

func newSteadySeries(m steady.Metric, main measure.Op, logical func() int64) *steadySeries {
	s := &steadySeries{metric: m, main: main, logical: logical, last: math.NaN()}
	if logical != nil {
		s.lastLog = logical()
	}
	return s
}

// observe takes an interval's system figures as the hook records them.
func (s *steadySeries) observe(iv *measure.Interval, sys map[string]any) {
	s.last = math.NaN()
	switch s.metric {
	case steady.WKBPerOp:
		if wb, ok := s.written(sys); ok {
			s.last = s.ratio.Add(wb/1024, iv.Rate(s.main)*iv.Seconds)
		}
	case steady.WriteAmp:
		if s.logical == nil {
			return // refused before the run (checkSteady)
		}
		now := s.logical()
		inserted := float64(now - s.lastLog)
		s.lastLog = now
		if wb, ok := s.written(sys); ok {
			s.last = s.ratio.Add(wb, inserted)
		}
	case steady.SizeGrowth:
		if b, ok := results.Number(sys[SysDiskBytes]); ok {
			s.last = b
		}
	}
}

// value is the clock's steady-state value of an interval.
func (s *steadySeries) value(iv *measure.Interval) float64 {
	if s.metric == steady.Rate {
		return iv.Rate(s.main)
	}
	v := s.last
	s.last = math.NaN()
	return v
}
