package merge

import (
	"testing"

	"rumbench/internal/results"
	"rumbench/internal/sysmetrics"
)

// A merged step's space amplification follows sysmetrics' one rule: the
// engine's live size over the merged logical live bytes, source "live",
// null with sysmetrics' reason when the engine did not say.
func TestMergedSpaceAmpIsLiveSize(t *testing.T) {
	for _, c := range []struct{ live, logical int64 }{{1000, 500}, {9174063, 12600000}, {-1, 500}, {1000, 0}} {
		sum := &results.Step{EngineSize: c.live, Details: map[string]any{results.DetailLogicalLiveBytes: c.logical}}
		m := &results.Metrics{NullReasons: map[string]string{}}
		amplification(m, sum)
		want, why := sysmetrics.SpaceAmp(c.live, c.logical, true)
		switch {
		case want == nil && (m.SpaceAmp != nil || m.SpaceAmpSource != "" || m.NullReasons["space_amp"] != why):
			t.Errorf("live %d, logical %d: space_amp %v (%s, %q), want null because %q", c.live, c.logical, m.SpaceAmp, m.SpaceAmpSource, m.NullReasons["space_amp"], why)
		case want != nil && (m.SpaceAmp == nil || *m.SpaceAmp != *want || m.SpaceAmpSource != results.SpaceAmpLive):
			t.Errorf("live %d, logical %d: space_amp %v (%s), want %g (live)", c.live, c.logical, m.SpaceAmp, m.SpaceAmpSource, *want)
		}
	}
}
