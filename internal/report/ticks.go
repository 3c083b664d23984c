package report

import (
	"rumbench/internal/units"

	"gonum.org/v1/plot"
)

// engTicks labels an axis's ticks in engineering notation (2.5M, not
// 2500000.00), on the ticks the wrapped marker chooses.
type engTicks struct{ plot.Ticker }

func (t engTicks) Ticks(min, max float64) []plot.Tick {
	ticks := t.Ticker.Ticks(min, max)
	for i := range ticks {
		if ticks[i].Label != "" {
			ticks[i].Label = units.Eng(ticks[i].Value)
		}
	}
	return ticks
}

// minChartPoints is the fewest points a chart is drawn for: fewer say more
// as a table row (a step of one interval, a bar per engine of two).
const minChartPoints = 3
