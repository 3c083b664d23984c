package enginetest

import (
	"testing"

	_ "rumbench/internal/engine/all"
)

func TestWriteStepsEmbedded(t *testing.T) {
	for _, name := range []string{"pebble", "sqlite", "bbolt"} {
		t.Run(name, func(t *testing.T) {
			WriteSteps(t, Target{Engine: name, DataDir: t.TempDir()})
		})
	}
}
