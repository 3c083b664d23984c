package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"rumbench/internal/enginetest"
	"rumbench/internal/results"
	"rumbench/internal/testdb"
)

// TestMaxRateOnServer: l.max's probes on a server engine each run on fresh
// connections (a session whose context ended is not used again): on the
// local PostgreSQL every probe of the search completes and a sustained rate
// is found. Before, the second probe failed with an i/o timeout on the
// first probe's interrupted sessions.
func TestMaxRateOnServer(t *testing.T) {
	t.Parallel()
	database := testdb.Name(t, "rb_maxrate")
	freshDB(t, pgAdmin(t), database)
	out := filepath.Join(t.TempDir(), "r")
	_, stderr, code := rb(t, "run", "--engine", "postgres", "--database", database, "--steps", "l.i0,l.x,l.max",
		"--rows", "5000", "--clients", "1", "--probe-seconds", "1", "--settle-seconds", "0.3", "--max-seconds", "20",
		"--search-start", "500", "--quiet", "--out", out)
	if code != 0 {
		if enginetest.RequireServers() {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		t.Skipf("local postgres unavailable (exit %d): %s", code, stderr)
	}
	var st struct {
		Details struct {
			Sustained float64        `json:"sustained_rate"`
			Search    results.Search `json:"search"`
		} `json:"details"`
		Error string `json:"error"`
	}
	b, err := os.ReadFile(filepath.Join(out, "postgres", "steps", "l.max.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	if st.Error != "" || len(st.Details.Search.Probes) < 3 || st.Details.Sustained <= 0 {
		t.Fatalf("l.max on postgres: error %q, %d probes, sustained %g", st.Error, len(st.Details.Search.Probes), st.Details.Sustained)
	}
}
