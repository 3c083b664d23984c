package enginetest

import (
	"testing"

	"rumbench/internal/workload/linkbench"
)

// TestLinkBenchCountsEmbedded: counts equal visible links after concurrent
// requests (issue 19), on every embedded engine.
func TestLinkBenchCountsEmbedded(t *testing.T) {
	for _, name := range []string{"pebble", "sqlite", "bbolt"} {
		t.Run(name, func(t *testing.T) {
			LinkBenchCounts(t, Target{Engine: name, DataDir: t.TempDir()})
		})
	}
}

// TestLinkBenchSameSeedSameTables: one configuration and seed loads
// identical table contents on different engines; another seed does not.
func TestLinkBenchSameSeedSameTables(t *testing.T) {
	c := LinkBenchConfig(linkbench.StepLoad)
	a := LinkBenchChecksum(t, Target{Engine: "pebble", DataDir: t.TempDir()}, c)
	b := LinkBenchChecksum(t, Target{Engine: "sqlite", DataDir: t.TempDir()}, c)
	if a != b {
		t.Fatalf("pebble checksum %s, sqlite %s: the same seed loaded different tables", a, b)
	}
	c.Seed++
	if d := LinkBenchChecksum(t, Target{Engine: "pebble", DataDir: t.TempDir()}, c); d == a {
		t.Fatalf("another seed loaded the same tables (%s)", d)
	}
	t.Logf("checksum %s", a)
}
