package main

import (
	"path/filepath"
	"strings"
	"testing"
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
