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
