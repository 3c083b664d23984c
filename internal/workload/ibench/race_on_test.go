//go:build race

package ibench

// raceEnabled: the race detector is on; some tests then run fewer of
// their variants (each still runs without it).
const raceEnabled = true
