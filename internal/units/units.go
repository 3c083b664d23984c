// Package units writes quantities for people: byte sizes in the binary
// units the flags take.
package units

import (
	"math"
	"strconv"
)

// Bytes writes n bytes in binary units to two decimals (256MB, 1.5GB),
// "none" for a negative n (no such memory).
func Bytes(n int64) string {
	if n < 0 {
		return "none"
	}
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}} {
		if n >= u.mult {
			return strconv.FormatFloat(math.Round(float64(n)/float64(u.mult)*100)/100, 'f', -1, 64) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}
