package figure

import (
	"math"
	"strconv"
)

// Precise prints a value of any figure where runs of it are set beside
// each other to judge a change of a few percent (the results history's
// tables and change points): whole numbers from 1000 up, four significant
// digits below, so that 12.34 and 12.71 stay apart where Format's two
// decimals from 10 would not.
func Precise(v float64) string {
	if math.Abs(v) >= 1000 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}
