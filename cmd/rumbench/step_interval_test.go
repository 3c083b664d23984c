package main

import (
	"path/filepath"
	"testing"
)

// TestQuickStepIntervalsRecorded: a run of the quick preset measures l.i0
// and l.i1 at 100 ms and l.i2 at 50 ms, records them in run.json's config
// and each step's summary; --interval gives every step the one interval.
func TestQuickStepIntervalsRecorded(t *testing.T) {
	t.Parallel()
	run := func(extra ...string) (map[string]float64, map[string]float64) {
		t.Helper()
		out := filepath.Join(t.TempDir(), "r")
		args := append([]string{"run", "--engine", "null", "--rows", "2000", "--churn-rows", "1000", "--steps", "l.i0,l.x,l.i1,l.i2", "--quiet", "--out", out}, extra...)
		if so, se, code := rb(t, args...); code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, so, se)
		}
		var cfg struct {
			Config struct {
				IBench struct {
					StepIntervalS map[string]float64 `json:"step_interval_s"`
				} `json:"ibench"`
			} `json:"config"`
		}
		readJSON(t, filepath.Join(out, "null", "run.json"), &cfg)
		steps := map[string]float64{}
		for _, s := range []string{"l.i0", "l.x", "l.i1", "l.i2"} {
			var st struct {
				Interval float64 `json:"interval_s"`
			}
			readJSON(t, filepath.Join(out, "null", "steps", s+".json"), &st)
			steps[s] = st.Interval
		}
		return cfg.Config.IBench.StepIntervalS, steps
	}
	own, steps := run()
	want := map[string]float64{"l.i0": 0.1, "l.x": 0.2, "l.i1": 0.125, "l.i2": 0.05}
	for s, w := range want {
		if steps[s] != w {
			t.Errorf("quick preset: %s measured at %gs, want %gs", s, steps[s], w)
		}
	}
	if len(own) != 3 || own["l.i0"] != 0.1 || own["l.i1"] != 0.125 || own["l.i2"] != 0.05 {
		t.Errorf("run.json step_interval_s %v, want l.i0 0.1, l.i1 0.125, l.i2 0.05", own)
	}
	own, steps = run("--interval", "200ms")
	for s, v := range steps {
		if v != 0.2 {
			t.Errorf("--interval 200ms: %s measured at %gs", s, v)
		}
	}
	if len(own) != 0 {
		t.Errorf("--interval 200ms: run.json still records step intervals %v", own)
	}
}
