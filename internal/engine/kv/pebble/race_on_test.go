//go:build race

package pebble

// The race detector changes allocation counts (sync.Pool drops items).
const raceEnabled = true
