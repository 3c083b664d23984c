package measure

import (
	"math"
	"sort"

	"rumbench/internal/units"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// RateMetBy returns the highest rate that at least pct percent of the
// intervals met or exceeded: the insert benchmark's IPS.99 for pct=99. With n
// intervals sorted ascending it is the value at index n - ceil(pct/100 * n).
// It returns 0 for no intervals.
func RateMetBy(rates []float64, pct float64) float64 {
	n := len(rates)
	if n == 0 {
		return 0
	}
	s := append([]float64(nil), rates...)
	sort.Float64s(s)
	need := int(math.Ceil(pct / 100 * float64(n)))
	if need < 1 {
		need = 1
	}
	if need > n {
		need = n
	}
	return s[n-need]
}

// Median returns the median of rates (0 for none).
func Median(rates []float64) float64 {
	n := len(rates)
	if n == 0 {
		return 0
	}
	s := append([]float64(nil), rates...)
	sort.Float64s(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Latency is the published summary of a latency histogram, in µs.
type Latency struct {
	Count int64 `json:"count"`
	P50   int64 `json:"p50_us"`
	P90   int64 `json:"p90_us"`
	P99   int64 `json:"p99_us"`
	P999  int64 `json:"p999_us"`
	Max   int64 `json:"max_us"`
	// Mean is the arithmetic mean, µs.
	Mean float64 `json:"mean_us"`
}

// Summarize reads the standard percentiles of h.
func Summarize(h *hdr.Histogram) Latency {
	if h == nil || h.TotalCount() == 0 {
		return Latency{}
	}
	return Latency{
		Count: h.TotalCount(),
		P50:   h.ValueAtQuantile(50),
		P90:   h.ValueAtQuantile(90),
		P99:   h.ValueAtQuantile(99),
		P999:  h.ValueAtQuantile(99.9),
		Max:   h.Max(),
		Mean:  units.Round(h.Mean(), 1),
	}
}
