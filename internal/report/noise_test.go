package report

import (
	"strings"
	"testing"
)

// TestNoiseWarning: a step in which other processes took half a core is
// flagged; one whose excess is within /proc/stat's tick resolution over a
// short span is not.
func TestNoiseWarning(t *testing.T) {
	bs, err := Load([]string{"testdata/run1"})
	if err != nil {
		t.Fatal(err)
	}
	b := bs[0]
	var steps []string
	for _, name := range b.StepNames() {
		if b.Steps[name].Metrics != nil {
			steps = append(steps, name)
		}
	}
	if len(steps) < 2 {
		t.Fatalf("fixture has %d steps with metrics, want 2", len(steps))
	}
	f := func(v float64) *float64 { return &v }
	b.Run.Host.Cores = 2
	loud, short := b.Steps[steps[0]].Metrics, b.Steps[steps[1]].Metrics
	loud.OtherCPUCores, loud.StealCores, loud.NoiseSpanS = f(0.5), f(0), f(10)
	short.OtherCPUCores, short.StealCores, short.NoiseSpanS = f(0.3), f(0.2), f(0.2) // margin 0.2 cores
	rep, err := Build(bs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var warn string
	for _, n := range rep.Warnings {
		if strings.Contains(n, "busy host") {
			warn = n
		}
	}
	if !strings.Contains(warn, steps[0]+": other processes 0.50 cores") || !strings.Contains(warn, "in 1 step(s)") {
		t.Errorf("warnings %q: want %s flagged (0.5 cores of others) and nothing else", rep.Warnings, steps[0])
	}
}
