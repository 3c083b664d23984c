package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rumbench/internal/managed"
)

// variantRun is what the variant tests read from a bundle's run.json.
type variantRun struct {
	Label  string `json:"label"`
	Engine struct {
		Name     string            `json:"name"`
		Settings map[string]string `json:"settings"`
	} `json:"engine"`
	StartedAt time.Time `json:"started_at"`
}

// stepSize reads a step's engine_size_bytes from a bundle.
func stepSize(t *testing.T, bundle, step string) float64 {
	t.Helper()
	var s struct {
		Size float64 `json:"engine_size_bytes"`
	}
	readJSON(t, filepath.Join(bundle, "steps", step+".json"), &s)
	return s.Size
}

// TestVariantsRepeatInterleaved (issue 36): two pebble variants, no
// compression and zstd, in one run with --repeat 4: every repetition runs
// both, in the order given (A B A B: a busy machine's noise falls on both
// alike), each bundle under its label; the report names the rows by label,
// takes --base by label, and zstd's data is smaller in every repetition.
func TestVariantsRepeatInterleaved(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "out")
	// Small memtables, so the rows reach compressed sstables.
	stdout := runTiny(t, out, "--engine", "none=pebble,zstd=pebble", "--engine-opt", "none.compression=none",
		"--engine-opt", "zstd.compression=zstd", "--engine-opt", "memtable_size=256KB",
		"--rows", "20000", "--churn-rows", "20000", "--steps", "l.i0,l.i1", "--repeat", "4", "--quiet")
	var last time.Time
	for k := 1; k <= 4; k++ {
		var sizes []float64
		for _, label := range []string{"none", "zstd"} {
			dir := filepath.Join(out, "rep-"+string(rune('0'+k)), label)
			var r variantRun
			readJSON(t, filepath.Join(dir, "run.json"), &r)
			if r.Label != label || r.Engine.Name != "pebble" || r.Engine.Settings["compression"] != label {
				t.Fatalf("%s: label %q engine %q compression %q", dir, r.Label, r.Engine.Name, r.Engine.Settings["compression"])
			}
			if !r.StartedAt.After(last) {
				t.Errorf("%s started at %s, not after the run before it (%s): the rounds do not interleave", dir, r.StartedAt, last)
			}
			last = r.StartedAt
			sizes = append(sizes, stepSize(t, dir, "l.i0"))
		}
		if !(sizes[1] > 0 && sizes[1] < sizes[0]) {
			t.Errorf("repetition %d: l.i0 size zstd %.0f, none %.0f: want zstd smaller", k, sizes[1], sizes[0])
		}
	}
	for _, want := range []string{"#1 none compression=none", "#2 zstd compression=zstd", "none compression=none ran", "zstd compression=zstd"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("run output lacks %q:\n%s", want, stdout)
		}
	}
	// --base by label; the size row of the relative table says whether
	// the difference is significant at N=4 (no ~ or ? mark).
	rep, stderr, code := rb(t, "report", out, "--base", "zstd")
	if code != 0 {
		t.Fatalf("report --base zstd: exit %d: %s", code, stderr)
	}
	if !strings.Contains(rep, "relative to base #2 zstd") {
		t.Fatalf("report --base zstd does not take run #2 as its base:\n%s", rep)
	}
	byNumber, _, _ := rb(t, "report", out, "--base", "2")
	if byNumber != rep {
		t.Errorf("--base 2 and --base zstd differ")
	}
	rep, _, _ = rb(t, "report", out)
	size := ""
	inEff := false
	for _, line := range strings.Split(rep, "\n") {
		inEff = inEff || strings.HasPrefix(line, "## efficiency per operation relative to base #1 none")
		if inEff && strings.HasPrefix(line, "| l.i0 ") {
			cells := strings.Split(strings.Trim(line, "| "), "|")
			size = strings.TrimSpace(cells[len(cells)-1])
			break
		}
	}
	if size == "" || strings.HasSuffix(size, "?") {
		t.Fatalf("no l.i0 live size relative to none at N=4 (%q):\n%s", size, rep)
	}
	t.Logf("zstd's l.i0 live size relative to none: %s (~: not significant)", size)
	wantBadInput(t, []string{"--base nope", "none, zstd"}, "report", out, "--base", "nope")
}

// TestVariantsFromConfig: --config's "variants" give labels, engines and
// settings as the flags would.
func TestVariantsFromConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "variants.json")
	if err := os.WriteFile(cfg, []byte(`{"variants": [
		{"label": "none", "engine": "pebble", "engine_opt": {"compression": "none"}},
		{"label": "zstd", "engine": "pebble", "engine_opt": {"compression": "zstd"}},
		{"engine": "sqlite"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	base := []string{"run", "--config", cfg, "--clients", "1", "--rows", "2000", "--steps", "l.i0", "--interval", "10ms", "--quiet", "--out", out}
	if so, se, code := rb(t, base...); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, so, se)
	}
	for label, want := range map[string]string{"none": "none", "zstd": "zstd", "sqlite": ""} {
		var r variantRun
		readJSON(t, filepath.Join(out, label, "run.json"), &r)
		if r.Label != map[bool]string{true: label}[label != "sqlite"] || r.Engine.Settings["compression"] != want {
			t.Errorf("%s: label %q compression %q, want %q", label, r.Label, r.Engine.Settings["compression"], want)
		}
	}
	// The runs table shows each label with its diff as read back and the
	// engine's version.
	rep, se, code := rb(t, "report", out)
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, se)
	}
	for label, want := range map[string]string{"none": "compression=none", "zstd": "compression=zstd"} {
		row := runsRow(rep, label)
		if !strings.Contains(row, "| "+want+" |") || !strings.Contains(row, "| v2.") {
			t.Errorf("runs table row of %s lacks its diff %q or pebble's version: %q", label, want, row)
		}
	}
	wantBadInput(t, []string{`"variants" lists the engines`}, append(base[:len(base)-1], filepath.Join(dir, "o2"), "--engine", "pebble")...)
}

// runsRow is the line of a markdown report's runs table whose label cell
// starts with label.
func runsRow(rep, label string) string {
	in := false
	for _, line := range strings.Split(rep, "\n") {
		in = in || line == "## runs"
		cells := strings.Split(line, "|")
		if in && len(cells) > 3 && strings.HasPrefix(strings.TrimSpace(cells[2]), label+" ") {
			return line
		}
	}
	return ""
}

// TestVariantsBadInput: each refusal is one line, exit 2, before anything
// runs.
func TestVariantsBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	same := filepath.Join(dir, "same.json")
	if err := os.WriteFile(same, []byte(`{"variants": [{"label": "a", "engine": "pebble", "engine_opt": {"sync": "true"}},
		{"label": "b", "engine": "pebble", "engine_opt": {"sync": "true"}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		wants []string
		args  []string
	}{
		{[]string{"label a is used twice"}, []string{"--engine", "a=pebble,a=sqlite"}},
		{[]string{"give each a label: --engine a=pebble,b=pebble"}, []string{"--engine", "pebble,pebble"}},
		{[]string{"--engine-opt c.sync=...", "neither a label nor an engine"},
			[]string{"--engine", "a=pebble,b=pebble", "--engine-opt", "a.sync=true", "--engine-opt", "c.sync=true"}},
		{[]string{"a and b have the same settings"}, []string{"--engine", "a=pebble,b=pebble"}},
		// The same settings reached two ways: plain for both, or scoped to each.
		{[]string{"a and b have the same settings"}, []string{"--engine", "a=pebble,b=pebble", "--engine-opt", "pebble.sync=true", "--engine-opt", "b.sync=true"}},
		{[]string{"a and b have the same settings"}, []string{"--config", same}},
		// Given apart but the same once open (read back, before anything
		// runs): two spellings of one size, a default given explicitly.
		{[]string{"a and b have the same settings once open", "read back: cache_size=67108864", "--engine-opt b.KEY=VALUE"},
			[]string{"--engine", "a=pebble,b=pebble", "--engine-opt", "a.cache_size=64MB", "--engine-opt", "b.cache_size=67108864"}},
		{[]string{"a and b have the same settings once open", "read back: defaults"},
			[]string{"--engine", "a=pebble,b=pebble", "--engine-opt", "a.compression=Snappy"}},
		{[]string{"label sqlite is the name of another engine"}, []string{"--engine", "sqlite=pebble"}},
		{[]string{`label "a.b" must be`}, []string{"--engine", "a.b=pebble"}},
	} {
		wantBadInput(t, tc.wants, append([]string{"run", "--out", out}, tc.args...)...)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a refused run left %s behind", out)
	}
	if err := managed.Check("postgres"); err != nil {
		t.Skipf("managed postgres: binaries not installed here: %v", err)
	}
	wantBadInput(t, []string{"--server-opt x.work_mem", "variant x (pebble) does not run on a managed server"},
		"run", "--out", out, "--engine", "pg=postgres,x=pebble", "--managed", "--server-opt", "x.work_mem=8MB")
}

// TestManagedVariants: two variants of one managed server, one with a
// --server-opt of its own label: each runs its own server, and each
// server's setting is read back (engine.config_diff); the report names
// them by label and the setting, not by where each server ran.
func TestManagedVariants(t *testing.T) {
	t.Parallel()
	if err := managed.Check("postgres"); err != nil {
		t.Skipf("managed postgres: binaries not installed here: %v", err)
	}
	out := filepath.Join(t.TempDir(), "out")
	stdout, stderr, code := rb(t, "run", "--engine", "pg4=postgres,pg8=postgres", "--managed", "--server-opt", "pg8.work_mem=8MB",
		"--steps", "l.i0", "--rows", "2000", "--clients", "1", "--interval", "10ms", "--quiet", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for label, want := range map[string]string{"pg4": "", "pg8": "8MB"} {
		var r struct {
			Label  string `json:"label"`
			Engine struct {
				ConfigDiff struct {
					Settings []struct{ Key, Value string } `json:"settings"`
				} `json:"config_diff"`
			} `json:"engine"`
		}
		readJSON(t, filepath.Join(out, label, "run.json"), &r)
		got := ""
		for _, s := range r.Engine.ConfigDiff.Settings {
			if s.Key == "work_mem" {
				got = s.Value
			}
		}
		if r.Label != label || got != want {
			t.Errorf("%s: label %q, work_mem read back %q, want %q", label, r.Label, got, want)
		}
	}
	// Named by the setting's value in effect, once (not also as given).
	if !strings.Contains(stdout, "pg8 work_mem=8MB") || strings.Contains(stdout, "managed_port") || strings.Contains(stdout, "server_opt.") {
		t.Errorf("the verdict should name the variants by label and setting only:\n%s", stdout)
	}
	// The runs table shows each label's diff as read back and its version.
	rep, _, _ := rb(t, "report", out)
	for label, want := range map[string]string{"pg4": "shared_buffers=", "pg8": "work_mem=8MB"} {
		var r struct {
			Engine struct{ Version string } `json:"engine"`
		}
		readJSON(t, filepath.Join(out, label, "run.json"), &r)
		if row := runsRow(rep, label); !strings.Contains(row, want) || r.Engine.Version == "" || !strings.Contains(row, "| "+r.Engine.Version+" |") {
			t.Errorf("runs table row of %s lacks %q or the server's version: %q", label, want, row)
		}
	}
	// A server setting given as its default is no setting of its own:
	// refused once both servers are read back, before anything runs.
	wantBadInput(t, []string{"pg4 and pg8 have the same settings once open", "--server-opt pg8.KEY=VALUE"},
		"run", "--engine", "pg4=postgres,pg8=postgres", "--managed", "--server-opt", "pg8.work_mem=4MB",
		"--steps", "l.i0", "--rows", "2000", "--quiet", "--out", filepath.Join(t.TempDir(), "same"))
}

// TestVariantsInstall: two variants of a managed server from two
// installations (here the system's and the same PostgreSQL named by its
// directory: one is installed) each record the installation they ran and
// its server's version; bad installations are refused up front.
func TestVariantsInstall(t *testing.T) {
	t.Parallel()
	if err := managed.Check("postgres"); err != nil {
		t.Skipf("managed postgres: binaries not installed here: %v", err)
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	if len(dirs) == 0 {
		t.Skip("no /usr/lib/postgresql/*/bin to name as an installation")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	cfg := filepath.Join(dir, "variants.json")
	if err := os.WriteFile(cfg, []byte(`{"variants": [{"label": "sys", "engine": "postgres"},
		{"label": "named", "engine": "postgres", "install": "`+dirs[0]+`", "server_opt": {"work_mem": "8MB"}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// The system's installation is likely dirs[0] itself: the same
	// server twice would be refused as one variant (CheckDistinctSettings),
	// so named has a setting of its own.
	stdout, stderr, code := rb(t, "run", "--config", cfg, "--managed", "--steps", "l.i0", "--rows", "2000", "--clients", "1",
		"--interval", "10ms", "--quiet", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, label := range []string{"sys", "named"} {
		var r struct {
			Engine struct {
				Version  string            `json:"version"`
				Settings map[string]string `json:"settings"`
			} `json:"engine"`
		}
		readJSON(t, filepath.Join(out, label, "run.json"), &r)
		if r.Engine.Settings["managed_install"] == "" || r.Engine.Version == "" || r.Engine.Settings["managed_version"] != r.Engine.Version {
			t.Errorf("%s: install %q, version %q, managed_version %q", label, r.Engine.Settings["managed_install"], r.Engine.Version, r.Engine.Settings["managed_version"])
		}
		if label == "named" && r.Engine.Settings["managed_install"] != dirs[0] {
			t.Errorf("named ran %q, want %s", r.Engine.Settings["managed_install"], dirs[0])
		}
	}
	o2 := filepath.Join(dir, "o2")
	for _, tc := range []struct {
		wants []string
		args  []string
	}{
		{[]string{"--install b=" + dir, "lacks initdb"}, []string{"--engine", "a=postgres,b=postgres", "--managed", "--install", "b=" + dir}},
		{[]string{"--install b=" + dir, "b (pebble) does not run on a managed server"}, []string{"--engine", "a=postgres,b=pebble", "--managed", "--install", "b=" + dir}},
		{[]string{"--install c=" + dir, "neither a label nor an engine"},
			[]string{"--engine", "a=postgres,b=postgres", "--managed", "--server-opt", "b.work_mem=8MB", "--install", "c=" + dir}},
		{[]string{"--server-opt b.work_mem", "variant b (postgres) does not run on a managed server"}, []string{"--engine", "a=postgres,b=postgres", "--server-opt", "b.work_mem=8MB"}},
	} {
		wantBadInput(t, tc.wants, append([]string{"run", "--out", o2}, tc.args...)...)
	}
}
