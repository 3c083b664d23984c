//go:build race

package enginetest

// raceEnabled: the race detector is on. Under it the suite's concurrent
// tests race fewer operations (enough interleavings to find a race, at a
// tenth of the detector's cost) and its oracle checks fewer ranges; the
// run without it keeps the full sizes.
const raceEnabled = true
