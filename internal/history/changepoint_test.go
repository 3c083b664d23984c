package history

import (
	"math/rand/v2"
	"testing"
)

// noisy is n values around level with ±noise relative uniform noise.
func noisy(r *rand.Rand, n int, level, noise float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = level * (1 + noise*(2*r.Float64()-1))
	}
	return out
}

// A 10% drop at run 13 of 24 (index 12), with ±3% noise, is found there.
func TestDetectStepAtKnownRun(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	xs := append(noisy(r, 12, 1000, 0.03), noisy(r, 12, 900, 0.03)...)
	got := Detect(xs, DefaultDetect)
	if len(got) != 1 {
		t.Fatalf("want one change, got %+v", got)
	}
	c := got[0]
	if c.Index != 12 {
		t.Fatalf("change at index %d, want 12: %+v", c.Index, c)
	}
	if rel := c.Rel(); rel > -0.07 || rel < -0.13 {
		t.Fatalf("relative change %.3f, want about -0.10", rel)
	}
}

// Flat noisy series flag nothing, over many seeds.
func TestDetectFlatSeriesFlagsNothing(t *testing.T) {
	flagged := 0
	for seed := uint64(0); seed < 50; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		if cs := Detect(noisy(r, 24, 1000, 0.05), DefaultDetect); len(cs) > 0 {
			flagged++
			t.Logf("seed %d: %+v", seed, cs)
		}
	}
	if flagged > 0 {
		t.Fatalf("%d of 50 flat series flagged a change", flagged)
	}
}

// A significant shift smaller than MinEffect is not reported.
func TestDetectMinEffect(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	xs := append(noisy(r, 12, 1000, 0.002), noisy(r, 12, 980, 0.002)...)
	if cs := Detect(xs, DefaultDetect); len(cs) != 0 {
		t.Fatalf("a 2%% shift passed the 5%% minimum effect: %+v", cs)
	}
	o := DefaultDetect
	o.MinEffect = 0.01
	if cs := Detect(xs, o); len(cs) != 1 || cs[0].Index != 12 {
		t.Fatalf("a 2%% shift with a 1%% minimum effect: %+v", cs)
	}
}

// Two steps are both found.
func TestDetectTwoSteps(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	xs := append(append(noisy(r, 8, 1000, 0.02), noisy(r, 8, 800, 0.02)...), noisy(r, 8, 1000, 0.02)...)
	cs := Detect(xs, DefaultDetect)
	if len(cs) != 2 || cs[0].Index != 8 || cs[1].Index != 16 {
		t.Fatalf("want changes at 8 and 16, got %+v", cs)
	}
}
