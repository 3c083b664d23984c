package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "rumbench-bin-")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "rumbench")
	args := []string{"build", "-o", binary}
	if len(binaryTags) > 0 {
		// The binary has the cgo engines the test was built with.
		args = append(args, "-tags", strings.Join(binaryTags, ","))
	}
	out, err := exec.Command("go", append(args, ".")...).CombinedOutput()
	if err != nil {
		os.Stderr.Write(out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	// Every test drops the databases it creates, also when it fails
	// (t.Cleanup): a leftover is a test's bug.
	if left := leftDatabases(); len(left) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: tests left databases on the local servers: %s\n", strings.Join(left, ", "))
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// rb runs the binary and returns stdout, stderr and the exit code.
func rb(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return so.String(), se.String(), code
}

// wantBadInput asserts exit code 2 and one stderr line mentioning each want.
func wantBadInput(t *testing.T, wants []string, args ...string) {
	t.Helper()
	_, stderr, code := rb(t, args...)
	if code != 2 {
		t.Fatalf("%v: exit code %d, want 2 (stderr %q)", args, code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(lines) != 1 {
		t.Fatalf("%v: stderr has %d lines, want one: %q", args, len(lines), stderr)
	}
	if strings.Contains(stderr, "panic") || strings.Contains(stderr, "goroutine") {
		t.Fatalf("%v: stderr looks like a crash: %q", args, stderr)
	}
	for _, w := range wants {
		if !strings.Contains(stderr, w) {
			t.Fatalf("%v: stderr %q does not mention %q", args, stderr, w)
		}
	}
}

// badInputFixtures writes the files the bad-input table refers to (config
// files, damaged bundles, another engine's data dir) under dir.
func badInputFixtures(t *testing.T, dir string) {
	t.Helper()
	write := func(rel, content string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("cfg/malformed.json", `{"engine": "null", "rows": `)
	write("cfg/array.json", `["engine", "null"]`)
	write("cfg/unknown.json", `{"engine": "null", "bogus_setting": 1}`)
	write("cfg/badvalue.json", `{"engine": "null", "rows": "many"}`)
	write("cfg/badengine.json", `{"engine": "nosuch"}`)
	run := `{"schema_version": 2, "tool": {"name": "rumbench"}, "workload": "ibench", "engine": {"name": "null"}, "steps": ["l.i0"], "complete": true}`
	write("truncated/null/run.json", run[:len(run)/2])
	write("future/null/run.json", strings.Replace(run, `"schema_version": 2`, `"schema_version": 99`, 1))
	write("badstep/null/run.json", run)
	write("badstep/null/steps/l.i0.json", `{"step": "l.i0", "complete": tr`)
	write("empty/.keep", "")
	write("sqlitedata/RUMBENCH_ENGINE", "sqlite\n")
	write("sqlitedata/sqlite.db", "not a real database")
}

// snapshot reads every file under dir, to show that refused input changed
// nothing.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			files[p] = string(b)
		}
		return nil
	})
	return files
}

// TestBadInput: every bad input (flags, DSNs, config files, damaged or
// future bundles, another engine's data dir) exits 2 with one line naming
// the problem, never panics, and changes no file it was given.
func TestBadInput(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	fx := t.TempDir()
	badInputFixtures(t, fx)
	before := snapshot(t, fx)
	// Refused only once the engine is open (its tables are missing): the
	// run leaves its new data dir and an incomplete bundle there.
	late := t.TempDir()
	base := []string{"run", "--engine", "null", "--out", filepath.Join(out, "r")}
	cases := []struct {
		name  string
		wants []string
		args  []string
	}{
		{"unknown engine", []string{"unknown engine", "nosuch", "rumbench engines"}, []string{"run", "--engine", "nosuch", "--out", out}},
		{"unknown step", []string{"unknown step", "l.i9"}, append(base, "--steps", "l.i0,l.i9")},
		{"too many indexes", []string{"--indexes", "between 0 and 3"}, append(base, "--indexes", "5")},
		{"zero rows", []string{"--rows", "at least 1"}, append(base, "--rows", "0")},
		{"negative rows", []string{"--rows"}, append(base, "--rows", "-5")},
		{"zero clients", []string{"--clients"}, append(base, "--clients", "0")},
		{"negative churn", []string{"--churn-rows"}, append(base, "--churn-rows", "-1")},
		{"pad order", []string{"--pad-max", "--pad-min"}, append(base, "--pad-min", "30", "--pad-max", "20")},
		{"unknown preset", []string{"--preset", "huge"}, append(base, "--preset", "huge")},
		{"bad flag value", []string{"invalid argument"}, append(base, "--rows", "many")},
		{"unknown flag", []string{"unknown flag", "--bogus"}, append(base, "--bogus")},
		{"unknown engine opt", []string{"unknown --engine-opt", "cache"}, append(base, "--engine-opt", "cache=1")},
		{"engine opt form", []string{"key=value"}, append(base, "--engine-opt", "cache")},
		{"unwritable out", []string{"--out"}, []string{"run", "--engine", "null", "--out", "/proc/rumbench-out"}},
		{"huge rows per commit", []string{"--rows-per-commit", "at most"}, append(base, "--rows-per-commit", "2000000000")},
		{"huge clients", []string{"--clients", "at most"}, append(base, "--clients", "1000000")},
		{"huge query seconds", []string{"--query-seconds", "at most"}, append(base, "--query-seconds", "1e300")},
		{"batch memory", []string{"client memory", "--pad-max"}, append(base, "--rows-per-commit", "1000", "--pad-min", "0", "--pad-max", "16000000")},
		{"steps need a load", []string{"run step l.i0 first"}, []string{"run", "--engine", "pebble", "--steps", "l.i1", "--data-dir", filepath.Join(late, "empty"), "--out", filepath.Join(late, "r2")}},
		{"linkbench mix sum", []string{"--mix", "sums to 90, not 100"}, []string{"run", "linkbench", "--engine", "null", "--mix", "get_node=50,add_link=40", "--out", filepath.Join(out, "lb")}},
		{"linkbench mix op", []string{"--mix", "unknown request type"}, []string{"run", "--workload", "linkbench", "--engine", "null", "--mix", "get_nodes=100", "--out", filepath.Join(out, "lb")}},
		{"linkbench verify workload", []string{"unknown workload"}, []string{"verify", "--engine", "null", "--data-dir", out, "--workload", "nope"}},
		{"unknown command", []string{"unknown command"}, []string{"frobnicate"}},
		{"verify without engine", []string{"--engine is required"}, []string{"verify"}},
		{"verify missing dir", []string{"does not exist"}, []string{"verify", "--engine", "null", "--data-dir", filepath.Join(out, "none")}},
		// Run settings.
		{"zero interval", []string{"--interval", "positive"}, append(base, "--interval", "0s")},
		{"rate percentile", []string{"--rate-percentile"}, append(base, "--rate-percentile", "0")},
		{"negative warmup", []string{"--warmup"}, append(base, "--warmup", "-1s")},
		{"negative op timeout", []string{"--op-timeout"}, append(base, "--op-timeout", "-5s")},
		{"engine listed twice", []string{"listed twice"}, []string{"run", "--engine", "null,null", "--out", filepath.Join(out, "r3")}},
		{"unknown workload", []string{"unknown --workload", "nosuch"}, []string{"run", "--workload", "nosuch"}},
		// DSNs.
		{"postgres dsn", []string{"postgres", "--dsn"}, []string{"run", "--engine", "postgres", "--dsn", "::bad", "--out", filepath.Join(out, "r4")}},
		{"innodb dsn is a URL", []string{"innodb", "--dsn", "URL"}, []string{"run", "--engine", "innodb", "--dsn", "postgres://u@localhost:5432/", "--out", filepath.Join(out, "r5")}},
		{"innodb dsn unclosed", []string{"innodb", "--dsn"}, []string{"run", "--engine", "innodb", "--dsn", "root@tcp(localhost", "--out", filepath.Join(out, "r6")}},
		// Config files.
		{"config missing", []string{"--config"}, append(base, "--config", filepath.Join(fx, "cfg", "none.json"))},
		{"config malformed", []string{"--config", "not a JSON object"}, append(base, "--config", filepath.Join(fx, "cfg", "malformed.json"))},
		{"config not an object", []string{"--config", "not a JSON object"}, append(base, "--config", filepath.Join(fx, "cfg", "array.json"))},
		{"config unknown key", []string{"unknown setting", "bogus_setting"}, append(base, "--config", filepath.Join(fx, "cfg", "unknown.json"))},
		{"config bad value", []string{"bad value", "rows"}, append(base, "--config", filepath.Join(fx, "cfg", "badvalue.json"))},
		{"config unknown engine", []string{"unknown engine", "nosuch"}, []string{"run", "--config", filepath.Join(fx, "cfg", "badengine.json"), "--out", filepath.Join(out, "r7")}},
		// Bundles.
		{"report truncated run.json", []string{"run.json"}, []string{"report", filepath.Join(fx, "truncated")}},
		{"report future schema", []string{"schema_version 99", "at least as new"}, []string{"report", filepath.Join(fx, "future")}},
		{"report truncated step", []string{"l.i0.json"}, []string{"report", filepath.Join(fx, "badstep")}},
		{"report no bundle", []string{"no run bundle"}, []string{"report", filepath.Join(fx, "empty")}},
		{"report missing dir", []string{"no such directory"}, []string{"report", filepath.Join(fx, "nowhere")}},
		{"report format", []string{"--format", "xml"}, []string{"report", "--format", "xml", filepath.Join(fx, "future")}},
		{"report base", []string{"--base"}, []string{"report", "--base", "0", filepath.Join(fx, "future")}},
		// Another engine's data dir.
		{"run on sqlite's data dir", []string{"sqlite", "--data-dir"}, []string{"run", "--engine", "pebble", "--data-dir", filepath.Join(fx, "sqlitedata"), "--out", filepath.Join(out, "r8")}},
		{"verify sqlite's data dir as pebble", []string{"sqlite", "pebble"}, []string{"verify", "--engine", "pebble", "--data-dir", filepath.Join(fx, "sqlitedata")}},
		// Crash test.
		{"crashtest null", []string{"null", "no crash test"}, []string{"crashtest", "--engine", "null"}},
		{"crashtest kill-after", []string{"--kill-after"}, []string{"crashtest", "--engine", "pebble", "--kill-after", "0s"}},
		{"crashtest unknown engine", []string{"unknown engine", "nosuch"}, []string{"crashtest", "--engine", "nosuch"}},
		{"crashtest non-empty data dir", []string{"not empty"}, []string{"crashtest", "--engine", "pebble", "--data-dir", filepath.Join(fx, "sqlitedata")}},
	}
	if len(cases) < 30 {
		t.Fatalf("the table has %d bad inputs, want at least 30", len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantBadInput(t, c.wants, c.args...) })
	}
	after := snapshot(t, fx)
	if len(after) != len(before) {
		t.Errorf("refused input changed the fixtures: %d files before, %d after", len(before), len(after))
	}
	for p, b := range before {
		if after[p] != b {
			t.Errorf("refused input changed %s", p)
		}
	}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		t.Errorf("refused input left %s in the --out parent", e.Name())
	}
}

// TestBadConfigRefusedUpFront checks that a bad --engine-opt value or --dsn
// is refused before any engine runs: exit 2, one line, no bundle of an
// earlier engine, no "results:" line and no --out dir left behind.
func TestBadConfigRefusedUpFront(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name  string
		wants []string
		args  []string
	}{
		{"engine opt value", []string{"pebble", "cache_size", "abc"}, []string{"run", "--engine", "null,pebble", "--engine-opt", "pebble.cache_size=abc"}},
		{"plain engine opt value", []string{"sqlite", "busy_timeout"}, []string{"run", "--engine", "null,sqlite", "--engine-opt", "busy_timeout=soon"}},
		{"postgres dsn", []string{"postgres", "--dsn"}, []string{"run", "--engine", "null,postgres", "--dsn", "::bad"}},
		{"innodb url dsn", []string{"innodb", "--dsn", "URL"}, []string{"run", "--engine", "null,innodb", "--dsn", "postgres://u@localhost:5432/"}},
		{"innodb bad dsn", []string{"innodb", "--dsn"}, []string{"run", "--engine", "null,innodb", "--dsn", "root@tcp(localhost"}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, fmt.Sprintf("out%d", i), "r")
			args := append(c.args, "--out", out, "--rows", "1000", "--churn-rows", "100")
			wantBadInput(t, c.wants, args...)
			stdout, _, _ := rb(t, args...)
			if strings.Contains(stdout, "results:") {
				t.Errorf("bad input printed a results line:\n%s", stdout)
			}
			if _, err := os.Stat(filepath.Join(out, "null")); err == nil {
				t.Fatal("the first engine ran before the bad setting was refused")
			}
			if _, err := os.Stat(filepath.Dir(out)); err == nil {
				t.Errorf("bad input left %s behind", filepath.Dir(out))
			}
		})
	}
}

func TestForeignDataDirIsRefused(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	os.MkdirAll(data, 0o755)
	os.WriteFile(filepath.Join(data, "RUMBENCH_ENGINE"), []byte("sqlite\n"), 0o644)
	wantBadInput(t, []string{"sqlite", "--data-dir"}, "run", "--engine", "null", "--data-dir", data, "--out", filepath.Join(dir, "o1"))

	other := filepath.Join(dir, "other")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "precious.txt"), []byte("keep me"), 0o644)
	wantBadInput(t, []string{"not written by rumbench"}, "run", "--engine", "null", "--data-dir", other, "--out", filepath.Join(dir, "o2"))
	if b, _ := os.ReadFile(filepath.Join(other, "precious.txt")); string(b) != "keep me" {
		t.Fatal("foreign data dir was modified")
	}
}

func TestExistingResultsAreNotOverwritten(t *testing.T) {
	out := t.TempDir()
	os.MkdirAll(filepath.Join(out, "null"), 0o755)
	run := filepath.Join(out, "null", "run.json")
	os.WriteFile(run, []byte(`{"old":true}`), 0o644)
	wantBadInput(t, []string{"already holds results", "--out"}, "run", "--engine", "null", "--out", out)
	if b, _ := os.ReadFile(run); string(b) != `{"old":true}` {
		t.Fatal("existing run.json was overwritten")
	}
}

// TestNullRunWritesBundle: a run of the default steps on the null engine
// writes a complete bundle. The query steps are 1 s instead of the quick
// preset's 10 s: every step still runs and completes, and the counts
// checked are the count-bounded steps'.
func TestNullRunWritesBundle(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	stdout, stderr, code := rb(t, "run", "--engine", "null", "--out", out, "--rows", "20000", "--churn-rows", "10000", "--clients", "2",
		"--query-seconds", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "client's own ceiling") {
		t.Fatalf("null run output is not labelled as the client ceiling:\n%s", stdout)
	}
	var run map[string]any
	readJSON(t, filepath.Join(out, "null", "run.json"), &run)
	for _, k := range []string{"schema_version", "tool", "config", "seed", "host", "engine"} {
		if _, ok := run[k]; !ok {
			t.Errorf("run.json lacks %q", k)
		}
	}
	if run["complete"] != true {
		t.Errorf("run.json complete = %v", run["complete"])
	}
	var step map[string]any
	readJSON(t, filepath.Join(out, "null", "steps", "l.i0.json"), &step)
	if step["inserted"].(float64) != 40000 || step["complete"] != true {
		t.Fatalf("l.i0 summary: inserted=%v complete=%v", step["inserted"], step["complete"])
	}
	readJSON(t, filepath.Join(out, "null", "steps", "l.i1.json"), &step)
	if step["inserted"].(float64) != 16000 || step["deleted"].(float64) != 16000 {
		t.Fatalf("l.i1: inserted=%v deleted=%v, want 16000 each (4/5 of 2x10000)", step["inserted"], step["deleted"])
	}
	readJSON(t, filepath.Join(out, "null", "steps", "l.i2.json"), &step)
	if step["inserted"].(float64) != 4000 || step["deleted"].(float64) != 4000 {
		t.Fatalf("l.i2: inserted=%v deleted=%v, want 4000 each", step["inserted"], step["deleted"])
	}
}

func TestInterruptKeepsResults(t *testing.T) {
	out := t.TempDir()
	cmd := exec.Command(binary, "run", "--engine", "null", "--out", out, "--rows", "2000000000", "--interval", "200ms")
	var se bytes.Buffer
	cmd.Stderr = &se
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the run has written its first interval.
	deadline := time.Now().Add(20 * time.Second)
	for {
		if fi, err := os.Stat(filepath.Join(out, "null", "intervals.jsonl")); err == nil && fi.Size() > 0 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("run wrote no interval within 20s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("exit after Ctrl-C: %v, want code 130 (stderr %q)", err, se.String())
	}
	var step map[string]any
	readJSON(t, filepath.Join(out, "null", "steps", "l.i0.json"), &step)
	if step["complete"] != false || step["inserted"].(float64) <= 0 {
		t.Fatalf("interrupted l.i0: complete=%v inserted=%v", step["complete"], step["inserted"])
	}
	var run map[string]any
	readJSON(t, filepath.Join(out, "null", "run.json"), &run)
	if run["complete"] != false {
		t.Fatal("run.json of an interrupted run says complete")
	}
}

func TestEnginesList(t *testing.T) {
	stdout, _, code := rb(t, "engines", "-v")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, w := range []string{"pebble", "LSM", "sqlite", "B-tree", "null", "embedded"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("engines output lacks %q:\n%s", w, stdout)
		}
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
