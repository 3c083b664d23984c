//go:build !race

package enginetest

// raceEnabled: the race detector is on (race_on.go).
const raceEnabled = false
