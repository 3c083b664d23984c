package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// --cooldown pauses between two engines' runs (not before the first) and is
// recorded in each run.json's config; a negative one is bad input.
func TestCooldown(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "r")
	stdout, stderr, code := rb(t, "run", "--engine", "null,bbolt", "--rows", "1000", "--steps", "l.i0", "--cooldown", "300ms", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if n := strings.Count(stdout, "cooling down for 300ms"); n != 1 {
		t.Errorf("cooled down %d times between 2 engines, want 1:\n%s", n, stdout)
	}
	for _, e := range []string{"null", "bbolt"} {
		var run struct {
			Config map[string]any `json:"config"`
		}
		readJSON(t, filepath.Join(out, e, "run.json"), &run)
		if run.Config["cooldown_s"] != 0.3 {
			t.Errorf("%s: config cooldown_s = %v, want 0.3", e, run.Config["cooldown_s"])
		}
	}
	wantBadInput(t, []string{"--cooldown must be 0 or more"}, "run", "--engine", "null", "--cooldown", "-1s", "--out", filepath.Join(t.TempDir(), "x"))
}

// --step-pause pauses between two steps of a run, outside both windows:
// the next step starts at least the pause after the previous one's end,
// and after its last sample (its end-of-step flush included) as far as
// the bundle tells it; the pause is recorded in run.json's config; a
// negative one is bad input.
func TestStepPause(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "r")
	_, stderr, code := rb(t, "run", "--engine", "bbolt", "--rows", "1000", "--steps", "l.i0,l.x,l.i1", "--churn-rows", "200", "--step-pause", "400ms", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var run struct {
		Config map[string]any `json:"config"`
	}
	readJSON(t, filepath.Join(out, "bbolt", "run.json"), &run)
	if run.Config["step_pause_s"] != 0.4 {
		t.Errorf("config step_pause_s = %v, want 0.4", run.Config["step_pause_s"])
	}
	type step struct {
		Started time.Time `json:"started_at"`
		Seconds float64   `json:"seconds"`
		Metrics struct {
			NoiseSpanS *float64 `json:"noise_span_s"`
		} `json:"metrics"`
	}
	var prev *step
	for _, name := range []string{"l.i0", "l.x", "l.i1"} {
		var s step
		readJSON(t, filepath.Join(out, "bbolt", "steps", name+".json"), &s)
		if prev != nil {
			if gap := s.Started.Sub(prev.Started).Seconds() - prev.Seconds; gap < 0.4 {
				t.Errorf("%s started %.3fs after the previous step's end, want at least the 0.4s pause", name, gap)
			}
			// From the last sample: the noise span runs from the step's
			// first sample, taken before its clock starts (started_at),
			// so started_at + span is later than the last sample by that
			// lead, which the bundle does not record (a few ms; tens
			// on a loaded host): 0.1 s is allowed for it.
			if prev.Metrics.NoiseSpanS != nil {
				if gap := s.Started.Sub(prev.Started).Seconds() - *prev.Metrics.NoiseSpanS; gap < 0.3 {
					t.Errorf("%s started %.3fs after the previous step's last sample (less the first sample's lead), want the 0.4s pause", name, gap)
				}
			}
		}
		prev = &s
	}
	wantBadInput(t, []string{"--step-pause must be 0 or more"}, "run", "--engine", "null", "--step-pause", "-1s", "--out", filepath.Join(t.TempDir(), "x"))
}
