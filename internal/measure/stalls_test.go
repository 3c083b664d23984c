package measure

import (
	"slices"
	"testing"
)

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
		if got := FindStalls(c.rates, c.secs, StallRule{}); got != c.want {
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
		if got := FindStalls(c.rates, ones(len(c.rates)), StallRule{Timed: true, Window: c.window}); got != c.want {
			t.Errorf("%s: FindStallsTimed(%v, %d) = %+v, want %+v", c.name, c.rates, c.window, got, c.want)
		}
	}
}

func TestTimedWindow(t *testing.T) {
	for _, c := range []struct {
		secs, interval float64
		want           int
	}{{10, 1, 10}, {10, 2, 5}, {0.3, 1, 1}, {9.6, 1, 10}, {0, 1, 0}} {
		if got := TimedWindow(c.secs, c.interval); got != c.want {
			t.Errorf("TimedWindow(%g, %g) = %d, want %d", c.secs, c.interval, got, c.want)
		}
	}
}

// The live judgement is the same rule applied to the intervals known so
// far: on a series whose median is settled, the live marks equal the final
// marks, except where the live line cannot know yet (a count-bounded
// operation without progress may have finished).
func TestLiveStallFollowsTheRule(t *testing.T) {
	rates := []float64{100, 100, 100, 20, 100, 100, 0, 100, 100}
	for _, r := range []StallRule{{}, {Timed: true, Window: len(rates)}} {
		final := StallMarks(rates, r)
		for i := 2; i < len(rates); i++ {
			live := LiveStall(rates[:i+1], r)
			want := final[i]
			if !r.Timed && rates[i] <= 0 {
				want = false
			}
			if live != want {
				t.Errorf("timed=%v interval %d: live %v, final %v", r.Timed, i, live, final[i])
			}
		}
	}
	// Not started yet: never flagged live.
	if LiveStall([]float64{0, 0}, StallRule{Timed: true, Window: 5}) {
		t.Error("an operation that never progressed was flagged live")
	}
	// Past the window: not judged.
	if LiveStall([]float64{100, 100, 0}, StallRule{Timed: true, Window: 2}) {
		t.Error("an interval past the timed window was judged")
	}
}

// A paced operation's rule groups intervals so that a window spans at least
// two of its batch periods.
func TestForPeriod(t *testing.T) {
	for _, c := range []struct {
		period, interval float64
		want             int
	}{{0, 0.1, 1}, {0.25, 1, 1}, {0.5, 1, 2}, {0.25, 0.1, 8}, {0.25, 0.2, 4}, {0.05, 0.1, 2}, {1, 1, 3}, {0.2, 0.1, 6}, {0.025, 0.1, 1}} {
		if got := (StallRule{}).ForPeriod(c.period, c.interval).Group; got != c.want {
			t.Errorf("ForPeriod(%g, %g).Group = %d, want %d", c.period, c.interval, got, c.want)
		}
	}
}

func TestGroupRates(t *testing.T) {
	for _, c := range []struct {
		rates []float64
		group int
		want  []float64
	}{
		{[]float64{1, 2, 3}, 1, []float64{1, 2, 3}},
		{[]float64{0, 300, 0, 300, 0, 0}, 2, []float64{150, 150, 0}},
		// A trailing partial window joins the one before it.
		{[]float64{0, 300, 0, 300, 0}, 2, []float64{150, 100}},
		{[]float64{10}, 3, []float64{10}},
		{nil, 3, nil},
	} {
		if got := GroupRates(c.rates, c.group); !slices.Equal(got, c.want) {
			t.Errorf("GroupRates(%v, %d) = %v, want %v", c.rates, c.group, got, c.want)
		}
	}
}

// A paced writer at 100 ms intervals with a batch every 200 ms: alone,
// every other interval would be a stall; grouped by its period (windows of
// 6 intervals, 3 batches) only the window that lost two of its batches is,
// every interval of it, and the live line flags it when the window closes.
// A window that lost one batch (2/3 of the rate) is not a stall.
func TestStallMarksGrouped(t *testing.T) {
	rates := make([]float64, 36)
	for i := 0; i < len(rates); i += 2 {
		rates[i] = 500 // 50 rows in 0.1 s
	}
	rates[14], rates[16] = 0, 0 // window 12-17 keeps one batch of three
	rates[26] = 0               // window 24-29 keeps two
	r := StallRule{Timed: true, Window: len(rates)}.ForPeriod(0.2, 0.1)
	if r.Group != 6 {
		t.Fatalf("group %d, want 6", r.Group)
	}
	marks := StallMarks(rates, r)
	for i, m := range marks {
		if want := i >= 12 && i < 18; m != want {
			t.Errorf("interval %d: stalled %v, want %v", i, m, want)
		}
	}
	ungrouped := StallMarks(rates, StallRule{Timed: true, Window: len(rates)})
	n := 0
	for _, m := range ungrouped {
		if m {
			n++
		}
	}
	if n != 21 {
		t.Errorf("ungrouped: %d stalled intervals, want the 21 without a batch", n)
	}
	for i := range rates {
		live := LiveStall(rates[:i+1], r)
		if want := i == 17; live != want {
			t.Errorf("live at interval %d: %v, want %v", i, live, want)
		}
	}
	// The rate percentile over the windows: the stalled window's rate.
	if got := RateMetBy(r.WindowRates(rates), 99); got != 250.0/3 {
		t.Errorf("p99 over windows %g, want %g", got, 250.0/3)
	}
	if got := RateMetBy(r.WindowRates(rates), 50); got != 250 {
		t.Errorf("p50 over windows %g, want 250", got)
	}
}

// The timed window's last intervals join the window before them: the live
// line waits for them rather than judging a window the summary will not.
func TestLiveStallGroupedWindowEnd(t *testing.T) {
	r := StallRule{Timed: true, Window: 7, Group: 3}
	rates := []float64{100, 100, 100, 0, 0, 0, 300}
	final := StallMarks(rates, r)
	if final[3] || final[6] {
		t.Fatalf("final marks %v: the last window (0, 0, 0, 300) averages 75, not a stall against 100", final)
	}
	for i := range rates {
		if LiveStall(rates[:i+1], r) {
			t.Errorf("live flagged interval %d; the summary marks %v", i, final)
		}
	}
}

// Rate percentiles are taken over the intervals the rule judges: not the
// catch-up after a timed window, not a finished operation's idle tail.
func TestWindowRatesJudgedOnly(t *testing.T) {
	timed := StallRule{Timed: true, Window: 4}
	if got := timed.WindowRates([]float64{100, 90, 110, 100, 0, 0}); !slices.Equal(got, []float64{100, 90, 110, 100}) {
		t.Errorf("timed window: %v", got)
	}
	if got := RateMetBy(timed.WindowRates([]float64{100, 90, 110, 100, 0, 0}), 99); got != 90 {
		t.Errorf("p99 over the timed window %g, want 90 (the catch-up's zeros are not judged)", got)
	}
	if got := (StallRule{}).WindowRates([]float64{100, 0, 100, 0, 0}); !slices.Equal(got, []float64{100, 0, 100}) {
		t.Errorf("count-bounded: %v", got)
	}
}
