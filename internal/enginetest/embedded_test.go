package enginetest

import (
	"context"
	"testing"

	"rumbench/internal/engine"
	_ "rumbench/internal/engine/all"
	"rumbench/internal/model"
	"rumbench/internal/results"
)

func TestWriteStepsEmbedded(t *testing.T) {
	for _, name := range []string{"pebble", "sqlite", "bbolt"} {
		t.Run(name, func(t *testing.T) {
			WriteSteps(t, Target{Engine: name, DataDir: t.TempDir()})
		})
	}
}

// TestSizesEmbedded: the on-disk footprint and the engine's live size are
// both recorded, and space amplification divides the live size (issue 34).
func TestSizesEmbedded(t *testing.T) {
	for _, name := range []string{"pebble", "sqlite", "bbolt"} {
		t.Run(name, func(t *testing.T) {
			Sizes(t, Target{Engine: name, DataDir: t.TempDir()}, results.DiskDataDir)
		})
	}
}

func openEmbedded(t *testing.T, name string) model.DB {
	t.Helper()
	db, err := engine.Open(context.Background(), name, model.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
