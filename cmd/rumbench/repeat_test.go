package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestRepeatBadValues(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "out")
	for _, v := range []string{"0", "-2", "101", "two"} {
		wantBadInput(t, []string{"--repeat"}, "run", "--engine", "null", "--repeat", v, "--out", out)
	}
	wantBadInput(t, []string{"--repeat"}, "sweep", "--engine", "null", "--repeat", "0", "--out", out)
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a refused --repeat left %s behind", out)
	}
}

// runTiny runs `rumbench run` with tiny sizes and --repeat into out and
// returns its output.
func runTiny(t *testing.T, out string, args ...string) string {
	t.Helper()
	base := []string{"run", "--clients", "1", "--rows", "5000", "--churn-rows", "5000", "--interval", "10ms", "--out", out}
	stdout, stderr, code := rb(t, append(base, args...)...)
	if code != 0 {
		t.Fatalf("run %v: exit %d\n%s\n%s", args, code, stdout, stderr)
	}
	return stdout
}

// both runs the two sides of a comparison at once, so that whatever else
// the machine does falls on both alike.
func both(t *testing.T, a, b func()) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); a() }()
	go func() { defer wg.Done(); b() }()
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
}

type compareDoc struct {
	Comparisons []struct {
		Runs []struct {
			Label       string   `json:"label"`
			Repetitions []string `json:"repetitions"`
		} `json:"runs"`
		Steps []struct {
			Step string `json:"step"`
			Rows []struct {
				Status     string `json:"status"`
				VsBaseTest map[string]struct {
					Ratio       *float64 `json:"ratio"`
					P           *float64 `json:"p_value"`
					Significant bool     `json:"significant"`
					N           int      `json:"n"`
					NBase       int      `json:"n_base"`
					Note        string   `json:"note"`
				} `json:"vs_base_test"`
			} `json:"rows"`
		} `json:"steps"`
	} `json:"comparisons"`
}

func compareJSON(t *testing.T, oldDir, newDir string) compareDoc {
	t.Helper()
	stdout, stderr, code := rb(t, "report", "--compare", oldDir, newDir, "--format", "json")
	if code != 0 {
		t.Fatalf("report --compare: exit %d: %s", code, stderr)
	}
	var doc compareDoc
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("report --compare json: %v\n%s", err, stdout)
	}
	return doc
}

// startedAt reads a finished bundle's start time.
func startedAt(t *testing.T, dir string) time.Time {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		StartedAt  time.Time  `json:"started_at"`
		FinishedAt *time.Time `json:"finished_at"`
	}
	if err := json.Unmarshal(raw, &r); err != nil || r.FinishedAt == nil {
		t.Fatalf("%s: %v, finished %v", dir, err, r.FinishedAt)
	}
	return r.StartedAt
}

// TestRepeatInterleaved: --repeat runs whole rounds of the engines (A B A
// B), each repetition into its own directory.
func TestRepeatInterleaved(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "out")
	// Two steps, so the summary chart has its 3 points (2 runs × 2 steps).
	stdout := runTiny(t, out, "--engine", "null,pebble", "--repeat", "3", "--steps", "l.i0,l.i2")
	// Before the repetitions, one line says what 3 can and cannot show,
	// with the thresholds the statistics use.
	lines := strings.SplitN(stdout, "\n", 3)
	if len(lines) < 3 || !strings.HasPrefix(lines[1], "--repeat 3:") || !strings.Contains(lines[1], "needs 4 per side") || !strings.Contains(lines[1], "needs 6") {
		t.Errorf("the run does not say at its start what --repeat 3 can show:\n%s", strings.Join(lines[:min(2, len(lines))], "\n"))
	}
	type started struct {
		name string
		at   time.Time
	}
	var order []started
	for k := 1; k <= 3; k++ {
		for _, e := range []string{"null", "pebble"} {
			order = append(order, started{e, startedAt(t, filepath.Join(out, fmt.Sprintf("rep-%d", k), e))})
		}
	}
	for i := 1; i < len(order); i++ {
		if !order[i-1].at.Before(order[i].at) {
			t.Errorf("run %d (%s, %s) did not start after run %d (%s, %s): want null, pebble, null, pebble, ...",
				i+1, order[i].name, order[i].at, i, order[i-1].name, order[i-1].at)
		}
	}
	raw, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatalf("no summary over the repetitions: %v", err)
	}
	var sum struct {
		Runs []struct {
			Repetitions []string `json:"repetitions"`
		} `json:"runs"`
		Steps []struct {
			Rows []struct {
				Stats map[string]struct {
					N      int       `json:"n"`
					Values []float64 `json:"values"`
					Median float64   `json:"median"`
				} `json:"stats"`
			} `json:"rows"`
		} `json:"steps"`
	}
	if err := json.Unmarshal(raw, &sum); err != nil || len(sum.Runs) != 2 || len(sum.Steps) != 2 {
		t.Fatalf("summary.json: %v, %d runs, %d steps; want 2 engines and l.i0, l.i2", err, len(sum.Runs), len(sum.Steps))
	}
	for i, row := range sum.Steps[0].Rows {
		st := row.Stats["rate_avg"]
		if len(sum.Runs[i].Repetitions) != 3 || st.N != 3 || len(st.Values) != 3 || st.Median <= 0 {
			t.Errorf("run %d: repetitions %v, rate stats %+v; want 3 of each", i+1, sum.Runs[i].Repetitions, st)
		}
	}
	html, err := os.ReadFile(filepath.Join(out, "report.html"))
	// Three repetitions have no finite interval: no bars, the medians'
	// ratios to the base.
	if err != nil || !strings.Contains(string(html), "median repetition") || !strings.Contains(string(html), "headline rate of each step relative to base") {
		t.Errorf("report.html (%v) lacks the repetitions' faint lines or the relative rates", err)
	}
	if strings.Contains(string(html), "bars: ") {
		t.Errorf("report.html of 3 repetitions draws bars where the tables say ±∞")
	}
	stdout, _, code := rb(t, "report", out)
	if code != 0 || !strings.Contains(stdout, "±∞") || !strings.Contains(stdout, "| spread |") || !strings.Contains(stdout, "?: too few repetitions") {
		t.Errorf("report of a repeated run (exit %d) lacks intervals, spread or the too-few note:\n%s", code, stdout)
	}
}

// TestRepeatAA compares a configuration with itself, 5 repetitions a side,
// on the null engine and pebble: the churn step's headline rates must not
// be marked significant. Each such figure is a false positive with
// probability ≈ 3% (the exact U test's size at n = 5+5, α = 0.05), so one
// fresh retry keeps the test from failing on chance alone while a method
// that calls everything significant still fails.
func TestRepeatAA(t *testing.T) {
	t.Parallel()
	var flagged []string
	for attempt := 0; attempt < 2; attempt++ {
		dir := t.TempDir()
		a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
		args := []string{"--engine", "null,pebble", "--repeat", "5", "--steps", "l.i0,l.i1"}
		both(t, func() { runTiny(t, a, args...) }, func() { runTiny(t, b, args...) })
		doc := compareJSON(t, a, b)
		if len(doc.Comparisons) != 2 {
			t.Fatalf("%d comparisons, want one per engine (null, pebble)", len(doc.Comparisons))
		}
		flagged = nil
		for _, c := range doc.Comparisons {
			if n := len(c.Runs[0].Repetitions); n != 5 {
				t.Fatalf("%s: %d repetitions, want 5", c.Runs[0].Label, n)
			}
			for _, s := range c.Steps {
				cmp, ok := s.Rows[1].VsBaseTest["rate_avg"]
				if !ok || cmp.P == nil || cmp.N != 5 || cmp.NBase != 5 || cmp.Ratio == nil {
					t.Fatalf("%s %s: rate_avg test %+v, want a p-value over 5+5 repetitions", c.Runs[1].Label, s.Step, cmp)
				}
				if s.Step == "l.i1" && cmp.Significant {
					flagged = append(flagged, c.Runs[1].Label+" "+s.Step)
				}
			}
		}
		if len(flagged) == 0 {
			break
		}
		t.Logf("attempt %d: A/A flagged %v as significant; retrying once", attempt+1, flagged)
	}
	if len(flagged) > 0 {
		t.Errorf("A/A comparison marked %v significant twice running", flagged)
	}
}

// TestRepeatAB: pebble's churn step with 3 secondary indexes against none
// is a real difference (four keys written per row instead of one). A sweep
// over the two with --repeat 5 interleaves them (x0 x3 x0 x3 ...); its
// cells compared mark the difference significant, the new side slower. With
// fewer repetitions than the test needs, the same difference gets the
// message, not a p-value.
//
// Not parallel: a difference is only as clear as the machine is quiet, and
// the other tests' runs would be its noise. The churn is long enough
// (150k rows: about 0.12 s at 0 indexes, 0.7 s at 3) that another
// package's test taking a core for tens of milliseconds, as in CI, does not
// make the two overlap.
func TestRepeatAB(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "sweep")
	stdout, stderr, code := rb(t, "sweep", "--engine", "pebble", "--indexes", "0,3", "--repeat", "5", "--rows", "10000", "--churn-rows", "150000",
		"--steps", "l.i0,l.x,l.i1", "--interval", "10ms", "--out", out)
	if code != 0 {
		t.Fatalf("sweep: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "rep 5/5") || !strings.Contains(stdout, "median of the 5 repetitions") {
		t.Errorf("sweep output does not show its repetitions:\n%s", stdout)
	}
	x0, x3 := filepath.Join(out, "x0-pad20-c1"), filepath.Join(out, "x3-pad20-c1")
	// Interleaved: x0 and x3 of repetition k both start before either of
	// repetition k+1.
	var prev time.Time
	for k := 1; k <= 5; k++ {
		for _, cell := range []string{x0, x3} {
			at := startedAt(t, filepath.Join(cell, fmt.Sprintf("rep-%d", k), "pebble"))
			if !at.After(prev) {
				t.Errorf("%s rep-%d started at %s, not after the run before it (%s): want x0 x3 x0 x3 ...", filepath.Base(cell), k, at, prev)
			}
			prev = at
		}
	}
	doc := compareJSON(t, x0, x3)
	if len(doc.Comparisons) != 1 {
		t.Fatalf("%d comparisons, want 1", len(doc.Comparisons))
	}
	found := false
	for _, s := range doc.Comparisons[0].Steps {
		if s.Step != "l.i1" {
			continue
		}
		found = true
		cmp := s.Rows[1].VsBaseTest["rate_avg"]
		if cmp.P == nil || !cmp.Significant || *cmp.Ratio >= 1 || cmp.N != 5 || cmp.NBase != 5 {
			t.Errorf("l.i1 with 3 indexes vs 0: ratio %v, p %v, significant %v, n %d+%d; want significantly slower over 5+5", deref(cmp.Ratio), deref(cmp.P), cmp.Significant, cmp.N, cmp.NBase)
		}
	}
	if !found {
		t.Fatal("no l.i1 in the comparison")
	}
	// Two repetitions against five can never reach p < 0.05.
	few := filepath.Join(dir, "few")
	if err := os.MkdirAll(few, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"rep-1", "rep-2"} {
		if err := os.Symlink(filepath.Join(x3, k), filepath.Join(few, k)); err != nil {
			t.Fatal(err)
		}
	}
	doc = compareJSON(t, x0, few)
	for _, s := range doc.Comparisons[0].Steps {
		cmp, ok := s.Rows[1].VsBaseTest["rate_avg"]
		if !ok {
			continue // l.x: no index built at 0 indexes
		}
		if cmp.P != nil || cmp.Significant || !strings.Contains(cmp.Note, "too few repetitions") {
			t.Errorf("%s, 2 vs 5 repetitions: %+v, want no p-value and the too-few message", s.Step, cmp)
		}
	}
	stdout, _, _ = rb(t, "report", "--compare", x0, few)
	if !strings.Contains(stdout, "?: too few repetitions") {
		t.Errorf("markdown comparison does not explain the ?:\n%s", stdout)
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
