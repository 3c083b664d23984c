package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A repeated run with --history records both repetitions; adding its
// directory again changes nothing; list, show and export read them back.
func TestRunRecordsHistory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "h", "history.db")
	out := filepath.Join(dir, "r")
	_, stderr, code := rb(t, "run", "--engine", "null", "--rows", "1000", "--steps", "l.i0", "--repeat", "2", "--quiet", "--out", out, "--history", db)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	stdout, stderr, code := rb(t, "history", "add", "--history", db, out)
	if code != 0 || strings.Count(stdout, "updated ") != 2 || strings.Contains(stdout, "added ") {
		t.Fatalf("re-adding the run: exit %d, want two updates:\n%s%s", code, stdout, stderr)
	}
	stdout, _, code = rb(t, "history", "list", "--history", db, "--engine", "null", "--since", "1h")
	if code != 0 || strings.Count(stdout, "rep-") != 2 {
		t.Fatalf("list: exit %d, want the two repetitions:\n%s", code, stdout)
	}
	var keys []string
	for _, l := range strings.Split(strings.TrimSpace(stdout), "\n")[1:] {
		keys = append(keys, strings.Fields(l)[0])
	}
	stdout, stderr, code = rb(t, "history", "compare", "--history", db, keys[0], keys[1])
	if code != 0 || !strings.Contains(stdout, "headline rate relative to base") {
		t.Fatalf("compare: exit %d:\n%s%s", code, stdout, stderr)
	}
	wantBadInput(t, []string{"no recorded run"}, "history", "compare", "--history", db, keys[0], "ffffffffffff")
	stdout, _, code = rb(t, "history", "show", "--history", db, "--step", "l.i0")
	if code != 0 || !strings.Contains(stdout, "null ibench") || !strings.Contains(stdout, "2 runs") {
		t.Fatalf("show: exit %d:\n%s", code, stdout)
	}
	csv, cfg := filepath.Join(dir, "x.csv"), filepath.Join(dir, "otava.yaml")
	if _, stderr, code = rb(t, "history", "export", "--history", db, "--format", "otava", "--out", csv, "--otava-config", cfg); code != 0 {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(csv)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "time,run,rumbench_version,rumbench_commit,engine_version,hostname,l.i0.rate_avg,") {
		t.Fatalf("otava csv:\n%s", b)
	}
	if y, _ := os.ReadFile(cfg); !strings.Contains(string(y), "time_column: time") || !strings.Contains(string(y), "l.i0.p99_ms:\n        direction: -1") {
		t.Fatalf("otava config:\n%s", y)
	}
}

// series writes n copies of the stored pebble-small bundle under root,
// an hour apart, whose l.i0 insert rate is rate(i).
func series(t *testing.T, root string, n int, rate func(i int) float64) {
	src := filepath.Join("..", "..", "internal", "report", "testdata", "pebble-small")
	for i := 0; i < n; i++ {
		dst := filepath.Join(root, fmt.Sprintf("run%02d", i+1), "pebble")
		if err := os.MkdirAll(filepath.Join(dst, "steps"), 0o755); err != nil {
			t.Fatal(err)
		}
		edit := func(name string, f func(m map[string]any)) {
			var m map[string]any
			readJSON(t, filepath.Join(src, name), &m)
			f(m)
			b, _ := json.Marshal(m)
			if err := os.WriteFile(filepath.Join(dst, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		edit("run.json", func(m map[string]any) { m["started_at"] = fmt.Sprintf("2026-02-01T%02d:00:00Z", i) })
		edit(filepath.Join("steps", "l.i0.json"), func(m map[string]any) { m["ips_avg"] = rate(i) })
	}
}

// history check exits 1 on a series whose newest runs regressed, naming
// the change; 0 on a flat one; bad settings and stores are bad input.
func TestHistoryCheckGate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	noise := []float64{1.01, 0.99, 1.02, 0.98, 1.0, 1.01, 0.99, 1.0, 1.02, 0.98, 1.0, 0.99}
	flat, step := filepath.Join(dir, "flat.db"), filepath.Join(dir, "step.db")
	series(t, filepath.Join(dir, "a"), 12, func(i int) float64 { return 1000 * noise[i] })
	series(t, filepath.Join(dir, "b"), 12, func(i int) float64 {
		if i >= 8 {
			return 850 * noise[i]
		}
		return 1000 * noise[i]
	})
	for db, d := range map[string]string{flat: "a", step: "b"} {
		if _, stderr, code := rb(t, "history", "add", "--history", db, filepath.Join(dir, d)); code != 0 {
			t.Fatalf("add: exit %d: %s", code, stderr)
		}
	}
	stdout, stderr, code := rb(t, "history", "check", "--history", flat)
	if code != 0 || !strings.Contains(stdout, "0 changes") {
		t.Fatalf("flat series: exit %d:\n%s%s", code, stdout, stderr)
	}
	stdout, stderr, code = rb(t, "history", "check", "--history", step, "--figure", "rate_avg")
	if code != 1 || !strings.Contains(stdout, "REGRESSION: pebble ibench") || !strings.Contains(stdout, "at run 9 of 12") {
		t.Fatalf("stepped series: exit %d, want 1 naming run 9:\n%s%s", code, stdout, stderr)
	}
	page := filepath.Join(dir, "step.html")
	if stdout, stderr, code = rb(t, "history", "show", "--history", step, "--figure", "rate_avg", "--html", page); code != 0 || !strings.Contains(stdout, "REGRESSION rate_avg") {
		t.Fatalf("show: exit %d:\n%s%s", code, stdout, stderr)
	}
	if b, _ := os.ReadFile(page); !strings.Contains(string(b), "<svg") || !strings.Contains(string(b), ">regression rate_avg") {
		t.Fatalf("show --html: the page lacks the chart or the change:\n%.2000s", b)
	}
	stdout, stderr, code = rb(t, "history", "calibrate", "--history", flat, "--figure", "rate_avg", "--shuffles", "5")
	if code != 0 || !strings.Contains(stdout, "A/A calibration: 1 series, 12 runs") || !strings.Contains(stdout, "5% (chosen)") {
		t.Fatalf("calibrate: exit %d:\n%s%s", code, stdout, stderr)
	}
	wantBadInput(t, []string{"--min-effect"}, "history", "check", "--history", step, "--min-effect", "150%")
	wantBadInput(t, []string{"--since"}, "history", "list", "--history", step, "--since", "yesterday")
	wantBadInput(t, []string{"no such directory"}, "history", "add", "--history", step, filepath.Join(dir, "missing"))
	wantBadInput(t, []string{"history"}, "run", "--engine", "null", "--rows", "1000", "--out", filepath.Join(dir, "never"), "--history", "postgres://u:hunter2@127.0.0.1:1/x?connect_timeout=2")
	if _, err := os.Stat(filepath.Join(dir, "never")); err == nil {
		t.Fatal("run with an unreachable --history ran anyway")
	}
	wantBadInput(t, []string{"unknown command", "chek", "did you mean check"}, "history", "chek")
	wantBadInput(t, []string{"--format"}, "history", "export", "--history", step, "--format", "json")
	_, stderr, code = rb(t, "history", "list", "--history", "postgres://u:hunter2@127.0.0.1:1/x?connect_timeout=2")
	if code != 2 || strings.Contains(stderr, "hunter2") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Fatalf("unreachable history: exit %d, stderr %q", code, stderr)
	}
}

// End to end: twelve short runs of one label recorded with --history, six
// with pebble's compression zstd and six with none, give a regression of
// the live size at run 7 that names the setting. The size is judged, not
// the rate: a small memtable makes the load flush, so the size is
// nearly the same from run to run (0.00111–0.00120 GB with zstd, in one
// measured series) and a third larger without it,
// while the rate of runs this short varied 6x with whatever else the
// machine ran (a rate-judged version of this test missed a 3.9x drop).
// Any other change must say that nothing recorded differs around it.
func TestHistoryEndToEndSettingChange(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "history.db")
	for i := 1; i <= 12; i++ {
		compression := "zstd"
		if i > 6 {
			compression = "none"
		}
		_, stderr, code := rb(t, "run", "--engine", "pebble", "--rows", "20000", "--steps", "l.i0", "--engine-opt", "compression="+compression, "--engine-opt", "memtable_size=256KB",
			"--quiet", "--out", filepath.Join(dir, fmt.Sprintf("run%02d", i)), "--history", db)
		if code != 0 {
			t.Fatalf("run %d: exit %d: %s", i, code, stderr)
		}
	}
	stdout, stderr, code := rb(t, "history", "check", "--history", db, "--figure", "live_gb")
	fail := func(why string) {
		show, _, _ := rb(t, "history", "show", "--history", db, "--figure", "live_gb")
		t.Fatalf("check: %s (exit %d):\n%s%s%s", why, code, stdout, stderr, show)
	}
	if code != 0 && code != 1 {
		fail("exit code")
	}
	lines := strings.Split(stdout, "\n")
	found := false
	for i, l := range lines {
		if !strings.HasPrefix(l, "  live_gb ") {
			continue
		}
		if strings.Contains(l, "at run 7 of 12") {
			found = strings.Contains(lines[i-1], "REGRESSION") || strings.Contains(lines[i-1], "earlier regression")
			if !strings.Contains(lines[i+1], "engine setting compression: zstd → none") {
				fail("the change at run 7 does not name compression")
			}
		} else if !strings.Contains(lines[i+1], "nothing recorded differs") {
			fail("a change elsewhere names a difference")
		}
	}
	if !found {
		fail("no regression at run 7")
	}
}

// A sweep with --history records each cell's run, once even when the
// sweep is resumed.
func TestSweepRecordsHistory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, out := filepath.Join(dir, "h.db"), filepath.Join(dir, "sw")
	args := []string{"sweep", "--engine", "null", "--indexes", "0,1", "--rows", "1000", "--out", out, "--history", db}
	for i := 0; i < 2; i++ { // the second resumes a finished sweep
		if _, stderr, code := rb(t, args...); code != 0 {
			t.Fatalf("sweep: exit %d: %s", code, stderr)
		}
	}
	stdout, _, code := rb(t, "history", "list", "--history", db)
	if code != 0 || strings.Count(stdout, "/null\n") != 2 || !strings.Contains(stdout, "x0-pad20-c1") || !strings.Contains(stdout, "x1-pad20-c1") {
		t.Fatalf("list: exit %d, want the two cells once each:\n%s", code, stdout)
	}
}

// End to end, the other half: twelve identical short runs recorded with
// --history give no change point. Judged on the engine's own WAL bytes per
// inserted row (log_kb_per_op), which the same rows make the same on every
// run. CPU per row is not: with the test packages running beside each other
// on 2 cores, runs 5-7 of 12 once took 25% more CPU per row and were
// rightly flagged. TestCheckIdenticalRunsFlagNothing covers noisy series.
func TestHistoryEndToEndIdenticalRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "history.db")
	for i := 1; i <= 12; i++ {
		_, stderr, code := rb(t, "run", "--engine", "pebble", "--rows", "20000", "--steps", "l.i0", "--quiet",
			"--out", filepath.Join(dir, fmt.Sprintf("run%02d", i)), "--history", db)
		if code != 0 {
			t.Fatalf("run %d: exit %d: %s", i, code, stderr)
		}
	}
	stdout, stderr, code := rb(t, "history", "check", "--history", db, "--figure", "log_kb_per_op")
	if code != 0 || strings.Contains(stdout, "REGRESSION") || !strings.Contains(stdout, "0 changes") || !strings.Contains(stdout, "1 series") {
		show, _, _ := rb(t, "history", "show", "--history", db, "--figure", "log_kb_per_op")
		t.Fatalf("12 identical runs: exit %d, want 0 and no change:\n%s%s%s", code, stdout, stderr, show)
	}
}
