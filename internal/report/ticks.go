package report

import (
	"rumbench/internal/chart"
	"rumbench/internal/units"

	"gonum.org/v1/plot"
)

// engTicks labels an axis's ticks in engineering notation (2.5M, not
// 2500000.00), on the ticks the wrapped marker chooses.
type engTicks struct{ plot.Ticker }

func (t engTicks) Ticks(min, max float64) []plot.Tick {
	return chart.Ticks{Ticker: t.Ticker, Label: units.Eng}.Ticks(min, max)
}
