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

// Time-bounded (query) steps judge every interval of the timed window: a
// writer that hangs at the end, or never progresses, stalls.
func TestFindStallsTimed(t *testing.T) {
	ones := func(n int) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = 1
		}
		return s
	}
	cases := []struct {
		name   string
		rates  []float64
		window int
		want   Stalls
	}{
		{"steady", []float64{100, 100, 100, 100}, 4, Stalls{}},
		// The writer hangs for the last 2 s: a 2 s stall, not "finished".
		{"hangs at end", []float64{100, 100, 100, 0, 0}, 5, Stalls{Count: 1, Seconds: 2, LongestS: 2}},
		// Hangs for most of the step: the median is 0, zeros still stall.
		{"hangs mostly", []float64{100, 0, 0, 0, 0}, 5, Stalls{Count: 1, Seconds: 4, LongestS: 4}},
		// Never progressed: one stall covering the step.
		{"never ran", []float64{0, 0, 0}, 3, Stalls{Count: 1, Seconds: 3, LongestS: 3}},
		// Intervals after the window (deleter catch-up) are not judged.
		{"tail outside window", []float64{100, 100, 100, 0}, 3, Stalls{}},
		{"empty window", []float64{0, 0}, 0, Stalls{}},
	}
	for _, c := range cases {
		if got := FindStallsTimed(c.rates, ones(len(c.rates)), c.window); got != c.want {
			t.Errorf("%s: FindStallsTimed(%v, %d) = %+v, want %+v", c.name, c.rates, c.window, got, c.want)
		}
	}
}

func TestTimedWindow(t *testing.T) {
	cases := []struct {
		name   string
		series [][]float64
		want   int
	}{
		// Queries run to the end while the writer hangs: the window is the
		// queries' whole run.
		{"writer hangs", [][]float64{{100, 0, 0, 0}, {50, 50, 50, 50}}, 4},
		// Both stop before the last interval: catch-up tail excluded.
		{"catch-up tail", [][]float64{{100, 100, 0}, {50, 50, 0}}, 2},
		// Nothing ever progressed: the whole step.
		{"nothing ran", [][]float64{{0, 0, 0}, {0, 0, 0}}, 3},
		{"no series", nil, 0},
		{"ragged", [][]float64{{1}, {0, 0, 5, 0}}, 3},
	}
	for _, c := range cases {
		if got := TimedWindow(c.series...); got != c.want {
			t.Errorf("%s: TimedWindow = %d, want %d", c.name, got, c.want)
		}
	}
}
