package merge

import (
	"testing"

	"rumbench/internal/results"
)

// A merged step's space amplification follows the one rule: the engine's
// live size over the merged logical live bytes, source "live", null with
// the reason when the engine did not say or nothing is live.
func TestMergedSpaceAmpIsLiveSize(t *testing.T) {
	for _, c := range []struct {
		live, logical int64
		want          float64 // -1: null
		why           string
	}{
		{1000, 500, 2, ""}, {9174063, 12600000, 0.7281, ""},
		{-1, 500, -1, "the engine did not report its live size"}, {1000, 0, -1, "no live rows"},
	} {
		sum := &results.Step{EngineSize: c.live, Details: map[string]any{results.DetailLogicalLiveBytes: c.logical}}
		m := &results.Metrics{NullReasons: map[string]string{}}
		amplification(m, sum)
		switch {
		case c.want < 0 && (m.SpaceAmp != nil || m.SpaceAmpSource != "" || m.NullReasons["space_amp"] != c.why):
			t.Errorf("live %d, logical %d: space_amp %v (%s, %q), want null because %q", c.live, c.logical, m.SpaceAmp, m.SpaceAmpSource, m.NullReasons["space_amp"], c.why)
		case c.want >= 0 && (m.SpaceAmp == nil || *m.SpaceAmp != c.want || m.SpaceAmpSource != results.SpaceAmpLive):
			t.Errorf("live %d, logical %d: space_amp %v (%s), want %g (live)", c.live, c.logical, m.SpaceAmp, m.SpaceAmpSource, c.want)
		}
	}
}
