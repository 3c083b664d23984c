package history

import (
	"math"
	"sort"

	"github.com/aclements/go-moremath/stats"
)

// DetectOptions are the change-point detector's parameters
// (docs/history.md, "Change points").
type DetectOptions struct {
	// Alpha is the significance a split must reach, after the Bonferroni
	// correction for the number of positions tried in its segment.
	Alpha float64
	// MinEffect is the smallest relative shift of the mean reported
	// (0.05: 5%): smaller significant shifts are noise for a benchmark.
	MinEffect float64
	// MinSegment is the fewest points on each side of a change.
	MinSegment int
}

// DefaultDetect are the settings `history check` uses without flags.
var DefaultDetect = DetectOptions{Alpha: 0.01, MinEffect: 0.05, MinSegment: 3}

// Change is one change point of a series of values.
type Change struct {
	// Index is the first point of the new level (0-based).
	Index int
	// Before and After are the levels of the segments either side, up to
	// the neighbouring change points: their geometric means when the
	// series is positive, else their means.
	Before, After float64
	// P is the two-sided p-value of the test that found the change,
	// Bonferroni-corrected for the tests made in its segment: what was
	// compared with Alpha.
	P float64
}

// Rel is the change's relative shift, After/Before - 1.
func (c Change) Rel() float64 {
	if c.Before == 0 {
		return math.Inf(1)
	}
	return c.After/c.Before - 1
}

// Detect finds the change points of xs by binary segmentation with
// Student's two-sample t-test, the split test Apache Otava (after MongoDB's
// E-Divisive work) settled on. In a segment [lo, hi) every split τ and
// every end κ (as E-Divisive's κ: a second change beyond τ must not hide
// the first) leaving MinSegment points on each side is tested, xs[lo:τ]
// against xs[τ:κ]; the most significant is a change if it passes Alpha
// divided by the number of tests made (Bonferroni: the best of many tests
// of one flat segment is often "significant" alone) and shifts the mean
// by at least MinEffect. The two sides are then searched the same way.
// The result is ordered by index.
//
// A series of positive values (rates, costs) is judged on its logarithms
// and its levels are geometric means: benchmark noise is multiplicative
// (a stall halves a rate, it does not subtract a constant), so on the log
// scale the two sides' spreads are alike, as the t-test wants, and one
// very slow run weighs as much as one very fast one.
func Detect(xs []float64, o DetectOptions) []Change {
	if o.MinSegment < 2 {
		o.MinSegment = 2
	}
	logScale := len(xs) > 0
	for _, x := range xs {
		logScale = logScale && x > 0
	}
	ys := xs
	if logScale {
		ys = make([]float64, len(xs))
		for i, x := range xs {
			ys[i] = math.Log(x)
		}
	}
	ps := newPrefix(ys)
	level := func(lo, hi int) float64 {
		if logScale {
			return math.Exp(ps.mean(lo, hi))
		}
		return ps.mean(lo, hi)
	}
	m := o.MinSegment
	var idx []int
	pOf := map[int]float64{}
	var split func(lo, hi int)
	split = func(lo, hi int) {
		if hi-lo < 2*m {
			return
		}
		best, bestP, bestT, tries := -1, 2.0, 0.0, 0
		for tau := lo + m; tau <= hi-m; tau++ {
			for kappa := tau + m; kappa <= hi; kappa++ {
				tries++
				// Very clear splits all have p 0 (below float
				// precision): the larger t statistic decides.
				p, t := ps.ttest(lo, tau, kappa)
				if p < bestP || (p == bestP && t > bestT) {
					best, bestP, bestT = tau, p, t
				}
			}
		}
		if best < 0 || bestP*float64(tries) >= o.Alpha {
			return
		}
		before, after := level(lo, best), level(best, hi)
		if before != 0 && math.Abs(after/before-1) < o.MinEffect {
			return
		}
		idx = append(idx, best)
		pOf[best] = bestP * float64(tries)
		split(lo, best)
		split(best, hi)
	}
	split(0, len(xs))
	sort.Ints(idx)
	// The means either side are over the segments between neighbouring
	// change points.
	out := make([]Change, len(idx))
	for i, k := range idx {
		lo, hi := 0, len(xs)
		if i > 0 {
			lo = idx[i-1]
		}
		if i+1 < len(idx) {
			hi = idx[i+1]
		}
		out[i] = Change{Index: k, Before: level(lo, k), After: level(k, hi), P: pOf[k]}
	}
	return out
}

// prefix holds running sums of a series, so that every segment's mean
// and variance cost O(1) and the O(n²) split search stays cheap.
type prefix struct{ sum, sq []float64 }

func newPrefix(xs []float64) prefix {
	p := prefix{sum: make([]float64, len(xs)+1), sq: make([]float64, len(xs)+1)}
	for i, x := range xs {
		p.sum[i+1] = p.sum[i] + x
		p.sq[i+1] = p.sq[i] + x*x
	}
	return p
}

func (p prefix) mean(lo, hi int) float64 { return (p.sum[hi] - p.sum[lo]) / float64(hi-lo) }

// variance is the sample variance (n-1) of xs[lo:hi].
func (p prefix) variance(lo, hi int) float64 {
	n := float64(hi - lo)
	m := p.mean(lo, hi)
	v := (p.sq[hi] - p.sq[lo] - n*m*m) / (n - 1)
	if v < 0 {
		return 0 // rounding
	}
	return v
}

// ttest is Student's two-sample t-test of xs[lo:mid] against xs[mid:hi],
// with the two sides' variance pooled: the two-sided p-value and |t|. The
// pooled variance keeps a side of three runs that happen to agree from
// looking certain (Welch's test would trust its tiny variance, and then
// lose the split to its few degrees of freedom). Two constant samples are
// certainly different when their values differ (|t| infinite).
func (p prefix) ttest(lo, mid, hi int) (float64, float64) {
	n1, n2 := float64(mid-lo), float64(hi-mid)
	m1, m2 := p.mean(lo, mid), p.mean(mid, hi)
	df := n1 + n2 - 2
	pooled := ((n1-1)*p.variance(lo, mid) + (n2-1)*p.variance(mid, hi)) / df
	se := math.Sqrt(pooled * (1/n1 + 1/n2))
	// A spread below rounding noise of the means is none.
	eps := 1e-12 * (math.Abs(m1) + math.Abs(m2))
	if se <= eps {
		if math.Abs(m1-m2) <= eps {
			return 1, 0
		}
		return 0, math.Inf(1)
	}
	t := math.Abs(m1-m2) / se
	return 2 * stats.TDist{V: df}.CDF(-t), t
}
