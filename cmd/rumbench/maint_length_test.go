package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rumbench/internal/units"
)

// maint is one timed action: the report ranks it by no rate ratio (the
// headline rate table leaves it out, with a note) and the throughput
// summary gives its seconds, not 1/seconds rounded.
func TestMaintIsALengthNotARate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var outs []string
	for _, label := range []string{"a", "b"} {
		out := filepath.Join(dir, label)
		if _, stderr, code := rb(t, "run", "--engine", label+"=sqlite", "--rows", "1000", "--steps", "l.i0,maint", "--quiet", "--out", out); code != 0 {
			t.Fatalf("run: exit %d: %s", code, stderr)
		}
		outs = append(outs, out)
	}
	stdout, stderr, code := rb(t, append([]string{"report"}, outs...)...)
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	rel := mdSection(stdout, "headline rate relative to base")
	if rel == "" || strings.Contains(rel, "| maint") || !strings.Contains(stdout, "maint: one timed action in each run") {
		t.Errorf("the headline rate table ranks maint, or does not say why it is left out:\n%s", rel)
	}
	sum := mdSection(stdout, "## throughput summary")
	if !strings.Contains(sum, "maint(s)") || strings.Contains(sum, "maint(op/s)") {
		t.Fatalf("the throughput summary does not give maint as seconds:\n%s", sum)
	}
	for _, out := range outs {
		var st struct {
			Seconds float64 `json:"seconds"`
		}
		label := filepath.Base(out)
		b, err := os.ReadFile(filepath.Join(out, label, "steps", "maint.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &st); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(sum, " "+units.Num(st.Seconds)+" ") {
			t.Errorf("the throughput summary lacks %s's maint length %s s:\n%s", label, units.Num(st.Seconds), sum)
		}
	}
}
