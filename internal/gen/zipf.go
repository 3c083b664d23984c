package gen

import (
	"math"
)

// Zipf draws ranks in [1, n] with P(k) ∝ 1/k^θ for any θ > 0 by rejection
// inversion (Hörmann and Derflinger 1996, as in Apache Commons RNG).
// math/rand/v2's Zipf needs θ > 1, which excludes YCSB's 0.99. Setup is O(1)
// and a draw needs about one uniform, so it suits a 1M-row table and the
// hot path (no allocation). The struct is read-only after NewZipf: workers
// share it and bring their own generator.
type Zipf struct {
	n                    float64
	theta                float64
	hIntegralX1          float64
	hIntegralNumElements float64
	s                    float64
}

func NewZipf(n int64, theta float64) *Zipf {
	z := &Zipf{n: float64(n), theta: theta}
	z.hIntegralX1 = z.hIntegral(1.5) - 1
	z.hIntegralNumElements = z.hIntegral(z.n + 0.5)
	z.s = 2 - z.hIntegralInverse(z.hIntegral(2.5)-z.h(2))
	return z
}

// Sample returns a rank in [1, n]; rank 1 is the most popular.
func (z *Zipf) Sample(r *Rand) int64 {
	for {
		u := z.hIntegralNumElements + r.Float64()*(z.hIntegralX1-z.hIntegralNumElements)
		x := z.hIntegralInverse(u)
		k := math.Floor(x + 0.5)
		if k < 1 {
			k = 1
		} else if k > z.n {
			k = z.n
		}
		if k-x <= z.s || u >= z.hIntegral(k+0.5)-z.h(k) {
			return int64(k)
		}
	}
}

// hIntegral is ∫ h: (x^(1-θ) - 1) / (1-θ), or log x at θ = 1.
func (z *Zipf) hIntegral(x float64) float64 {
	lx := math.Log(x)
	return expm1Over((1-z.theta)*lx) * lx
}

// h is the unnormalised density x^-θ.
func (z *Zipf) h(x float64) float64 { return math.Exp(-z.theta * math.Log(x)) }

func (z *Zipf) hIntegralInverse(x float64) float64 {
	t := x * (1 - z.theta)
	if t < -1 {
		// Rounding can push t just below the domain of log1p.
		t = -1
	}
	return math.Exp(log1pOver(t) * x)
}

// log1pOver is log1p(x)/x, continuous at 0.
func log1pOver(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Log1p(x) / x
	}
	return 1 - x*(0.5-x*(1.0/3-0.25*x))
}

// expm1Over is expm1(x)/x, continuous at 0.
func expm1Over(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Expm1(x) / x
	}
	return 1 + x*0.5*(1+x*(1.0/3)*(1+0.25*x))
}
