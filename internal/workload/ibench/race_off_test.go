//go:build !race

package ibench

const raceEnabled = false
