package stats

import (
	"math"
	"strings"
	"testing"
)

func seq(from, to float64) []float64 {
	var v []float64
	for x := from; x <= to; x++ {
		v = append(v, x)
	}
	return v
}

// TestStatInterval checks the median's distribution-free interval against
// order statistics worked out by hand: [x(k), x(n+1−k)] covers the median
// with probability 1 − 2·P(Binomial(n, ½) < k).
func TestStatInterval(t *testing.T) {
	for _, tc := range []struct {
		values         []float64
		median, lo, hi float64
	}{
		// n=10: k=2 gives 1 − 2·11/1024 = 97.9% (k=3 would be 89%).
		{[]float64{10, 1, 9, 2, 8, 3, 7, 4, 6, 5}, 5.5, 2, 9},
		// n=6: only [min, max] reaches 95%: 1 − 2/64 = 96.9%.
		{[]float64{6, 5, 4, 3, 2, 1}, 3.5, 1, 6},
		// n=20: k=6 gives 97.4% (k=7: 94.2%, short of 95%).
		{seq(1, 20), 10.5, 6, 15},
	} {
		st := New(tc.values)
		if st.Median != tc.median || st.Lo == nil || *st.Lo != tc.lo || *st.Hi != tc.hi {
			t.Errorf("%v: median %g [%v, %v], want %g [%g, %g]", tc.values, st.Median, st.Lo, st.Hi, tc.median, tc.lo, tc.hi)
		}
		if st.Min != 1 || st.Max != float64(len(tc.values)) || st.N != len(tc.values) {
			t.Errorf("%v: spread %g..%g n %d", tc.values, st.Min, st.Max, st.N)
		}
	}
	// The values keep their run order (the report lists them so).
	if st := New([]float64{3, 1, 2}); st.Values[0] != 3 || st.Values[2] != 2 {
		t.Errorf("values reordered: %v", st.Values)
	}
	// Five repetitions cannot bound the median at 95% (1 − 2/32 = 94%).
	st := New(seq(1, 5))
	if st.Lo != nil || st.Hi != nil || st.CIText() != "±∞" || !strings.Contains(st.Note, "6") {
		t.Errorf("n=5: interval [%v, %v] %q note %q, want none and the number needed", st.Lo, st.Hi, st.CIText(), st.Note)
	}
	if got := New(seq(1, 10)).CIText(); got != "±64%" { // max(9/5.5−1, 1−2/5.5)
		t.Errorf("CIText = %q, want ±64%%", got)
	}
	if New(nil) != nil {
		t.Error("a figure no repetition measured has a summary")
	}
}

func TestCompareSignificance(t *testing.T) {
	// Completely separated 5 vs 5: the smallest p the test has, 2/C(10,5).
	c := Compare(New(seq(1, 5)), New(seq(6, 10)))
	if c.P == nil || math.Abs(*c.P-2.0/252) > 1e-9 || !c.Significant || c.Mark() != "" {
		t.Fatalf("separated: %+v, want p=2/252 significant", c)
	}
	if *c.Ratio != 8.0/3 {
		t.Errorf("ratio %g, want the ratio of medians 8/3", *c.Ratio)
	}
	// Interleaved samples: no difference.
	c = Compare(New([]float64{1, 3, 5, 7, 9}), New([]float64{2, 4, 6, 8, 10}))
	if c.P == nil || *c.P < 0.5 || c.Significant || c.Mark() != "~" {
		t.Errorf("interleaved: %+v, want not significant (~)", c)
	}
	// Identical figures (a size every repetition reports alike).
	c = Compare(New([]float64{4, 4, 4, 4}), New([]float64{4, 4, 4, 4}))
	if c.Significant || c.Mark() != "~" {
		t.Errorf("identical: %+v, want ~", c)
	}
}

// TestCompareTooFew: below the repetitions the U test needs to ever reach
// α = 0.05, a comparison says so and gives no p-value, however far apart
// the figures are.
func TestCompareTooFew(t *testing.T) {
	for _, n := range [][2]int{{3, 3}, {1, 10}, {4, 3}, {2, 5}} {
		a, b := seq(1, float64(n[0])), seq(100, float64(99+n[1]))
		c := Compare(New(a), New(b))
		if c.P != nil || c.Significant || c.Mark() != "?" || !strings.Contains(c.Note, "too few repetitions") {
			t.Errorf("%d vs %d: %+v, want no p-value and the too-few note", n[0], n[1], c)
		}
	}
	if p := MinPossibleP(4, 4); math.Abs(p-2.0/70) > 1e-12 {
		t.Errorf("MinPossibleP(4,4) = %g, want 2/70", p)
	}
	c := Compare(New(seq(1, 4)), New(seq(10, 13)))
	if c.P == nil || !c.Significant {
		t.Errorf("4 vs 4 separated: %+v, want significant", c)
	}
}

// The thresholds the run states at its start: 4 per side for the U test to
// reach p ≤ 0.05 (4 vs 4: 2/70), 6 for a finite 95% interval of the median
// (1 − 2/64 ≥ 95%, 1 − 2/32 not).
func TestRepeatThresholds(t *testing.T) {
	if got := MinRepsForTest(); got != 4 {
		t.Errorf("MinRepsForTest = %d, want 4", got)
	}
	if got := MinRepsForInterval(); got != 6 {
		t.Errorf("MinRepsForInterval = %d, want 6", got)
	}
}

// TestSamples: each key is summarised over the values it has; a key never
// added has no summary (unavailable, not 0).
func TestSamples(t *testing.T) {
	s := Samples{}
	for _, v := range []float64{3, 1, 2} {
		s.Add("rate", v)
	}
	s.Add("disk", 7)
	got := s.Stats()
	if len(got) != 2 || got["rate"].Median != 2 || got["rate"].N != 3 || got["disk"].Median != 7 {
		t.Errorf("Stats = %+v, want rate median 2 of 3, disk 7", got)
	}
	if got["missing"] != nil {
		t.Error("a key without values has a summary")
	}
}

func TestTexts(t *testing.T) {
	st := New([]float64{50, 100, 150})
	if got := st.SpreadText(); got != "100%" {
		t.Errorf("SpreadText = %q, want 100%%", got)
	}
	if got := New([]float64{0, 0, 0}).SpreadText(); got != "n/a" {
		t.Errorf("SpreadText of a zero median = %q, want n/a", got)
	}
	zero := New([]float64{0, 0, 0, 0, 0, 0})
	if got := zero.CIText(); got != "±0%" {
		t.Errorf("CIText of zeros = %q, want ±0%%", got)
	}
	if _, _, ok := New([]float64{1, 2, 3}).Bounds(); ok {
		t.Error("3 repetitions have interval bounds")
	}
	if lo, hi, ok := New(seq(1, 6)).Bounds(); !ok || lo != 1 || hi != 6 {
		t.Errorf("Bounds of 1..6 = %g %g %v, want 1 6 true", lo, hi, ok)
	}
}
