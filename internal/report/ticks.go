package report

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// engTicks labels an axis's ticks in engineering notation (2.5M, not
// 2500000.00), on the ticks the wrapped marker chooses.
type engTicks struct{ plot.Ticker }

func (t engTicks) Ticks(min, max float64) []plot.Tick {
	ticks := t.Ticker.Ticks(min, max)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = fmtEng(ticks[i].Value)
		}
	}
	return ticks
}

// fmtEng writes v with an SI suffix (k, M, G, T) and at most three
// significant digits: 2500000 -> 2.5M, 0.25 -> 0.25, 1500 -> 1.5k.
func fmtEng(v float64) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	a := math.Abs(v)
	suffix := ""
	for _, u := range []struct {
		s string
		f float64
	}{{"T", 1e12}, {"G", 1e9}, {"M", 1e6}, {"k", 1e3}} {
		if a >= u.f {
			v, suffix = v/u.f, u.s
			break
		}
	}
	// Three significant digits, trailing zeros dropped.
	s := strconv.FormatFloat(v, 'g', 3, 64)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		s = strconv.FormatFloat(f, 'f', -1, 64)
	}
	return s + suffix
}

// minChartPoints is the fewest points a chart is drawn for: fewer say more
// as a table row (a step of one interval, a bar per engine of two).
const minChartPoints = 3
