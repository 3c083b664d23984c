// Package stats summarises a figure over a run's repetitions (--repeat)
// and compares two sets of repetitions, as benchstat's benchmath does apart
// from its tables: benchmath's AssumeNothing, because run-to-run figures on
// a shared machine are skewed and multi-modal, not normal. The centre is
// the median, its interval is the distribution-free one from order
// statistics, and two sets of runs are compared with the Mann–Whitney U
// test.
package stats

import (
	"fmt"
	"math"

	"rumbench/internal/units"

	"golang.org/x/perf/benchmath"
)

const (
	// Confidence is the level of the interval around a median.
	Confidence = 0.95
	// Alpha is the significance level of comparisons.
	Alpha = 0.05
)

// Stat summarises one figure over a run's repetitions.
type Stat struct {
	// N is the number of repetitions that measured the figure.
	N int `json:"n"`
	// Values are the figure per repetition, in the order they ran.
	Values []float64 `json:"values"`
	Median float64   `json:"median"`
	// Lo and Hi bound the 95% confidence interval of the median; null
	// when there are too few repetitions for one (Note says how many).
	Lo *float64 `json:"ci_lo"`
	Hi *float64 `json:"ci_hi"`
	// Min and Max are the spread.
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
	Note string  `json:"note,omitempty"`
}

var thresholds = &benchmath.Thresholds{CompareAlpha: Alpha}

// New summarises values (available figures only, in run order); nil when
// there are none.
func New(values []float64) *Stat {
	if len(values) == 0 {
		return nil
	}
	st := &Stat{N: len(values), Values: append([]float64(nil), values...)}
	s := benchmath.NewSample(append([]float64(nil), values...), thresholds)
	sum := benchmath.AssumeNothing.Summary(s, Confidence)
	st.Median, st.Min, st.Max = sum.Center, s.Values[0], s.Values[len(s.Values)-1]
	if !math.IsInf(sum.Lo, 0) && !math.IsInf(sum.Hi, 0) {
		st.Lo, st.Hi = &sum.Lo, &sum.Hi
	}
	for _, w := range sum.Warnings {
		st.Note = w.Error()
	}
	return st
}

// Samples collect figures by key over repetitions, in run order.
type Samples map[string][]float64

// Add records one repetition's value of key.
func (s Samples) Add(key string, v float64) { s[key] = append(s[key], v) }

// Stats summarises every key that has a value; a key without one has no
// Stat (the figure is unavailable over the repetitions).
func (s Samples) Stats() map[string]*Stat {
	out := map[string]*Stat{}
	for k, vals := range s {
		if st := New(vals); st != nil {
			out[k] = st
		}
	}
	return out
}

// CIText is the interval as ± percent of the median (benchstat's form), or
// ±∞ when there are too few repetitions for one.
func (st *Stat) CIText() string {
	if st.Lo == nil {
		return "±∞"
	}
	if st.Median == 0 {
		if *st.Lo == 0 && *st.Hi == 0 {
			return "±0%"
		}
		return "±?"
	}
	v := math.Max(*st.Hi/st.Median-1, 1-*st.Lo/st.Median)
	return "±" + units.Fixed(100*math.Abs(v), 0) + "%"
}

// SpreadText is (max−min)/median in percent.
func (st *Stat) SpreadText() string {
	if st.Median == 0 {
		return units.NA
	}
	return units.Fixed(100*(st.Max-st.Min)/math.Abs(st.Median), 0) + "%"
}

// Bounds are what an error bar shows: the 95% interval of the median; ok
// is false with too few repetitions for one, where the tables say ±∞ and a
// chart draws no bar (a min–max bar there would read as an interval).
func (st *Stat) Bounds() (lo, hi float64, ok bool) {
	if st.Lo != nil {
		return *st.Lo, *st.Hi, true
	}
	return 0, 0, false
}

// Comparison is one figure of a run compared with the base's over their
// repetitions.
type Comparison struct {
	// Ratio is the ratio of the medians (run / base).
	Ratio *float64 `json:"ratio"`
	// P is the Mann–Whitney U test's p-value; null when the test could
	// never reach significance with these repetitions (Note says so).
	P           *float64 `json:"p_value"`
	Significant bool     `json:"significant"`
	N           int      `json:"n"`
	NBase       int      `json:"n_base"`
	Note        string   `json:"note,omitempty"`
}

// MinPossibleP is the smallest two-sided p-value the exact U test can give
// for samples of n1 and n2: both orderings that separate them completely,
// 2 / C(n1+n2, n1).
func MinPossibleP(n1, n2 int) float64 {
	c := 1.0
	for i := 1; i <= n1; i++ {
		c = c * float64(n2+i) / float64(i)
	}
	return math.Min(1, 2/c)
}

// Compare tests cur against base (both over repetitions); nil when either
// is.
func Compare(base, cur *Stat) *Comparison {
	if base == nil || cur == nil {
		return nil
	}
	c := &Comparison{N: cur.N, NBase: base.N}
	if base.Median != 0 {
		r := cur.Median / base.Median
		c.Ratio = &r
	}
	if MinPossibleP(cur.N, base.N) > Alpha {
		c.Note = fmt.Sprintf("too few repetitions (%d vs %d) for the U test to ever reach p<%.2f: run at least 4 of each", cur.N, base.N, Alpha)
		return c
	}
	cmp := benchmath.AssumeNothing.Compare(
		benchmath.NewSample(append([]float64(nil), base.Values...), thresholds),
		benchmath.NewSample(append([]float64(nil), cur.Values...), thresholds))
	p := cmp.P
	c.P = &p
	c.Significant = p <= cmp.Alpha
	for _, w := range cmp.Warnings {
		c.Note = w.Error()
	}
	return c
}

// Mark is what a ratio cell adds: "~" for no significant difference, "?"
// when there were too few repetitions to tell, "" when significant.
func (c *Comparison) Mark() string {
	switch {
	case c.P == nil:
		return "?"
	case !c.Significant:
		return "~"
	}
	return ""
}

// MinRepsForTest is the fewest repetitions per side (both alike) with which
// the Mann–Whitney U test can ever reach p ≤ Alpha: below it every ratio is
// marked "?", never "~" or significant. Computed from MinPossibleP, the
// rule Compare applies.
func MinRepsForTest() int {
	n := 1
	for MinPossibleP(n, n) > Alpha {
		n++
	}
	return n
}

// MinRepsForInterval is the fewest repetitions for which the median's
// Confidence interval (benchmath's order statistics, as New computes it)
// is finite: below it the tables say ±∞.
func MinRepsForInterval() int {
	for n := 1; ; n++ {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(i + 1)
		}
		if st := New(v); st.Lo != nil && !math.IsInf(*st.Lo, 0) {
			return n
		}
	}
}
