package results

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestRunConfigRoundTrip reads the config of stored bundles into RunConfig
// and writes it again: the bytes (keys, order, numbers) must not change.
func TestRunConfigRoundTrip(t *testing.T) {
	// Configs of every kind of bundle (ibench, hotrow, linkbench, a
	// repetition, a sweep cell), and any stored bundles named in the
	// environment.
	files, _ := filepath.Glob("testdata/config/*.json")
	if env := os.Getenv("RUMBENCH_GOLDEN_BUNDLES"); env != "" {
		g, _ := filepath.Glob(filepath.Join(env, "*/*/run.json"))
		g2, _ := filepath.Glob(filepath.Join(env, "*/*/*/run.json"))
		files = append(append(files, g...), g2...)
	}
	if len(files) < 5 {
		t.Fatalf("want the stored configs, found %d", len(files))
	}
	checked := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var run struct {
			Config json.RawMessage `json:"config"`
		}
		if filepath.Base(f) == "run.json" {
			if err := json.Unmarshal(data, &run); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
		} else {
			run.Config = data
		}
		var c RunConfig
		if err := json.Unmarshal(run.Config, &c); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		got, err := json.Marshal(&c)
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := json.Compact(&want, run.Config); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("%s: config written back differs:\n got %s\nwant %s", f, got, want.Bytes())
		}
		checked++
	}
	t.Logf("%d configs written back identically", checked)
}

// TestRunConfigSweepCell: a sweep cell records no run-only keys, and
// steady_state, cooldown_s and sweep_cell only when set.
func TestRunConfigSweepCell(t *testing.T) {
	c := &RunConfig{Workload: "ibench", WorkloadConfig: map[string]int{"rows": 1}, Preset: "quick", Engines: []string{"pebble"},
		EngineOpts: map[string]string{}, IntervalS: 0.2, RatePercentile: 99, SweepCell: "x0-pad20-c1", CooldownS: 1.5}
	got, err := json.Marshal(*c) // by value too: the same bytes
	if err != nil {
		t.Fatal(err)
	}
	want := `{"cooldown_s":1.5,"engine_opts":{},"engines":["pebble"],"ibench":{"rows":1},"interval_s":0.2,"preset":"quick","rate_percentile":99,"sweep_cell":"x0-pad20-c1","workload":"ibench"}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
