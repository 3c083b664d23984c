package history

import (
	"fmt"
	"math/rand/v2"
	"sort"
)

// Calibration is the detector's measured false-alarm rate on A/A series:
// runs of one build and config on one host, where every change point it
// flags is a false alarm.
type Calibration struct {
	// Series are the A/A series used; Skipped the series left out, with why
	// (something recorded differs between their runs: not A/A).
	Series  []*Series
	Skipped []string
	// Rows are the rates at each minimum effect tried (the chosen one
	// among them), all at the chosen alpha and minimum runs.
	Rows []CalibrationRow
	// ByFigure is the chosen setting's row per figure.
	ByFigure map[string]CalibrationRow
}

// CalibrationRow counts false alarms at one setting: in the series as
// they ran (drift over time included) and in Shuffles random orders of
// their values (noise alone).
type CalibrationRow struct {
	MinEffect float64
	// Points are the values judged (runs × figures); Flagged the change
	// points found among them.
	Points, Flagged int
	// ShuffledPoints and ShuffledFlagged are the same over the shuffles.
	ShuffledPoints, ShuffledFlagged int
}

// PerHundred is the false alarms per 100 runs judged, in run order.
func (r CalibrationRow) PerHundred() float64 { return per100(r.Flagged, r.Points) }

// ShuffledPerHundred is the false alarms per 100 runs over the shuffles.
func (r CalibrationRow) ShuffledPerHundred() float64 {
	return per100(r.ShuffledFlagged, r.ShuffledPoints)
}

func per100(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

// CalibrationEffects are the minimum effects calibrate reports beside the
// chosen one.
var CalibrationEffects = []float64{0, 0.01, 0.02, 0.05, 0.10}

// Calibrate measures the false-alarm rate of Detect with o on ss, treated
// as A/A series: a series whose runs differ in anything recorded (builds,
// versions, settings, config, host) is skipped. figures are CheckFigures
// when empty; shuffles random orders of each series are judged as well,
// from a fixed seed so that the figure is reproducible.
func Calibrate(ss []*Series, figures []string, o DetectOptions, shuffles int) *Calibration {
	if len(figures) == 0 {
		figures = CheckFigures
	}
	c := &Calibration{ByFigure: map[string]CalibrationRow{}}
	for _, s := range ss {
		if why := notAA(s); why != "" {
			c.Skipped = append(c.Skipped, fmt.Sprintf("%s: %s", s.Key, why))
			continue
		}
		c.Series = append(c.Series, s)
	}
	effects := append([]float64(nil), CalibrationEffects...)
	known := false
	for _, e := range effects {
		known = known || e == o.MinEffect
	}
	if !known {
		effects = append(effects, o.MinEffect)
		sort.Float64s(effects)
	}
	for _, e := range effects {
		oe := o
		oe.MinEffect = e
		total := CalibrationRow{MinEffect: e}
		for _, fig := range figures {
			if notChecked(fig) {
				continue
			}
			row := CalibrationRow{MinEffect: e}
			for si, s := range c.Series {
				var xs []float64
				for _, p := range s.Points {
					if v, ok := p.Figures[fig]; ok {
						xs = append(xs, v)
					}
				}
				if len(xs) < 2*o.MinSegment {
					continue
				}
				row.Points += len(xs)
				row.Flagged += len(Detect(xs, oe))
				r := rand.New(rand.NewPCG(uint64(si), 1))
				shuffled := append([]float64(nil), xs...)
				for k := 0; k < shuffles; k++ {
					r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
					row.ShuffledPoints += len(shuffled)
					row.ShuffledFlagged += len(Detect(shuffled, oe))
				}
			}
			if row.Points == 0 {
				continue
			}
			if e == o.MinEffect {
				c.ByFigure[fig] = row
			}
			total.Points += row.Points
			total.Flagged += row.Flagged
			total.ShuffledPoints += row.ShuffledPoints
			total.ShuffledFlagged += row.ShuffledFlagged
		}
		c.Rows = append(c.Rows, total)
	}
	return c
}

// notAA says what differs between a series' runs, or "" when nothing
// recorded does.
func notAA(s *Series) string {
	for i := 1; i < len(s.Points); i++ {
		if d := Differs(s.Points[0].Run, s.Points[i].Run); len(d) > 0 {
			return fmt.Sprintf("run %d differs from run 1 (%s): not an A/A series", i+1, d[0])
		}
	}
	return ""
}
