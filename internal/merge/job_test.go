package merge

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"rumbench/internal/results"
)

// Prepare checks everything before Write writes anything; Write merges
// each label into its own directory, in name order, saying so.
func TestJobMergesEveryLabel(t *testing.T) {
	dir := t.TempDir()
	var outs []string
	for i := 0; i < 2; i++ {
		out := filepath.Join(dir, fmt.Sprintf("shard-%d", i))
		outs = append(outs, out)
		for _, label := range []string{"zstd", "none"} {
			b := shardBundle(i)
			b.Run.SchemaVersion, b.Run.Workload, b.Run.Label, b.Run.Engine.Name = results.SchemaVersion, "ibench", label, "pebble"
			w, err := results.Create(filepath.Join(out, label))
			if err != nil {
				t.Fatal(err)
			}
			if err := w.WriteRun(&b.Run); err != nil {
				t.Fatal(err)
			}
			w.Close()
		}
	}
	if _, err := Prepare(outs[:1], filepath.Join(dir, "merged")); err == nil {
		t.Error("Prepare took one shard of two")
	}
	if _, err := Prepare([]string{filepath.Join(dir, "missing")}, filepath.Join(dir, "merged")); err == nil {
		t.Error("Prepare took a missing directory")
	}
	merged := filepath.Join(dir, "merged")
	j, err := Prepare(outs, merged)
	if err != nil {
		t.Fatal(err)
	}
	var w, errw strings.Builder
	if err := j.Write(&w, &errw); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(w.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "rumbench merge: none: 2 shards of run ") || !strings.HasSuffix(lines[1], " merged into "+filepath.Join(merged, "zstd")) {
		t.Errorf("Write said:\n%s", w.String())
	}
	for _, label := range []string{"none", "zstd"} {
		if got, err := results.Read(filepath.Join(merged, label)); err != nil || got.Run.Label != label {
			t.Errorf("merged %s: %v", label, err)
		}
	}
}
