package gen

import (
	"math"
	"testing"
)

// TestZipfMatchesExact compares sampled frequencies with the exact
// P(k) = k^-θ / Σ j^-θ on a small domain, on both sides of θ = 1.
func TestZipfMatchesExact(t *testing.T) {
	const n, draws = 20, 400_000
	for _, theta := range []float64{0.2, 0.99, 1, 1.5, 3} {
		z := NewZipf(n, theta)
		var r Rand
		r.Seed(1, uint64(theta*1000))
		counts := make([]int, n+1)
		for i := 0; i < draws; i++ {
			k := z.Sample(&r)
			if k < 1 || k > n {
				t.Fatalf("θ=%g: rank %d outside [1,%d]", theta, k, n)
			}
			counts[k]++
		}
		var norm float64
		for k := 1; k <= n; k++ {
			norm += math.Pow(float64(k), -theta)
		}
		for k := 1; k <= n; k++ {
			p := math.Pow(float64(k), -theta) / norm
			got := float64(counts[k]) / draws
			// Five standard deviations of a binomial proportion.
			if tol := 5 * math.Sqrt(p*(1-p)/draws); math.Abs(got-p) > tol {
				t.Errorf("θ=%g rank %d: frequency %.5f, want %.5f ± %.5f", theta, k, got, p, tol)
			}
		}
	}
}

// TestPickInRangeNoAlloc: every distribution picks a PK in [1, rows] and the
// hot path allocates nothing.
func TestPickInRangeNoAlloc(t *testing.T) {
	for _, dist := range []string{"hot", "uniform", "zipf:0.99"} {
		c := DefaultConfig()
		c.Rows, c.HotRows, c.Distribution, c.Tables = 1000, 3, dist, []int{1, 2}
		b, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		cl := &client{b: b, tables: b.tables}
		seen := map[int64]bool{}
		for i := 0; i < 20000; i++ {
			_, pk := cl.pick()
			if pk < 1 || pk > c.Rows {
				t.Fatalf("%s: pk %d outside [1,%d]", dist, pk, c.Rows)
			}
			seen[pk] = true
		}
		if dist == "hot" && len(seen) != 6 {
			t.Fatalf("hot: %d distinct rows over 2 tables of 3 hot rows", len(seen))
		}
		if dist != "hot" && len(seen) < 500 {
			t.Fatalf("%s: only %d distinct rows", dist, len(seen))
		}
		if n := testing.AllocsPerRun(1000, func() { cl.pick() }); n != 0 {
			t.Fatalf("%s: pick allocates %v times", dist, n)
		}
	}
}

// TestZipfScatterIsPermutation: the rank-to-PK map hits every PK once.
func TestZipfScatterIsPermutation(t *testing.T) {
	for _, n := range []uint64{1, 2, 3, 10, 97, 1000, 4096} {
		s := coprimeStride(n)
		seen := make([]bool, n)
		for r := uint64(0); r < n; r++ {
			seen[(r*s+7)%n] = true
		}
		for i, ok := range seen {
			if !ok {
				t.Fatalf("n=%d stride %d: position %d never hit", n, s, i)
			}
		}
	}
}
