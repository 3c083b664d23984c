package measure

import "testing"

func TestFindStalls(t *testing.T) {
	ones := func(n int) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = 1
		}
		return s
	}
	cases := []struct {
		name  string
		rates []float64
		secs  []float64
		want  Stalls
	}{
		{"steady", []float64{100, 110, 90, 105, 95}, ones(5), Stalls{}},
		// median 100: 49 is below 50, 50 is not.
		{"threshold", []float64{100, 49, 100, 50, 100}, ones(5), Stalls{Count: 1, Seconds: 1, LongestS: 1}},
		{"zero is a stall", []float64{100, 0, 100, 100}, ones(4), Stalls{Count: 1, Seconds: 1, LongestS: 1}},
		// Two runs: [1,2] (2 s) and [5] (1 s); a run is consecutive intervals.
		{"runs", []float64{100, 10, 0, 100, 100, 20, 100}, ones(7), Stalls{Count: 2, Seconds: 3, LongestS: 2}},
		// Seconds come from the interval lengths.
		{"lengths", []float64{100, 0, 0, 100}, []float64{1, 0.5, 1.25, 1}, Stalls{Count: 1, Seconds: 1.75, LongestS: 1.75}},
		// Trailing zeros: the operation had finished, not stalled.
		{"trailing zeros", []float64{100, 100, 100, 0, 0}, ones(5), Stalls{}},
		{"leading zero", []float64{0, 100, 100, 100}, ones(4), Stalls{Count: 1, Seconds: 1, LongestS: 1}},
		{"never ran", []float64{0, 0, 0}, ones(3), Stalls{}},
		{"empty", nil, nil, Stalls{}},
		// Median of an even count averages the middle pair: (40+100)/2=70, so 30 < 35 stalls and 40 does not.
		{"even median", []float64{30, 40, 100, 100}, ones(4), Stalls{Count: 1, Seconds: 1, LongestS: 1}},
	}
	for _, c := range cases {
		if got := FindStalls(c.rates, c.secs); got != c.want {
			t.Errorf("%s: FindStalls(%v) = %+v, want %+v", c.name, c.rates, got, c.want)
		}
	}
}

func TestIsStall(t *testing.T) {
	for _, c := range []struct {
		rate, med float64
		want      bool
	}{{0, 0, true}, {0, 10, true}, {4.9, 10, true}, {5, 10, false}, {1, 0, false}} {
		if got := IsStall(c.rate, c.med); got != c.want {
			t.Errorf("IsStall(%g, %g) = %v, want %v", c.rate, c.med, got, c.want)
		}
	}
}
