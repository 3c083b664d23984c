package main

import (
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"rumbench/internal/units"
)

// TestMaxRateRepeatHistory: l.max under --repeat 3 and --history. The
// repeat summary carries each repetition's sustained_rate and their
// median (no interval below 6 repetitions, said so) and no rate
// percentile, the terminal table prints that median, and the history
// records sustained_rate as a figure of each of the three runs. Tiny sizes
// and 1 s probes (0.5 s ones from 500 rows/s once all failed beside the
// whole test suite at load 10): the search is cut short by --max-seconds,
// whatever bracket it holds then is the figure.
func TestMaxRateRepeatHistory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, hist := filepath.Join(dir, "r"), filepath.Join(dir, "h.db")
	stdout, stderr, code := rb(t, "run", "--engine", "pebble", "--repeat", "3", "--steps", "l.i0,l.max",
		"--rows", "2000", "--clients", "1", "--probe-seconds", "1", "--settle-seconds", "0.1",
		"--max-seconds", "3.5", "--search-start", "200", "--history", hist, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	var reps []float64
	for i := 1; i <= 3; i++ {
		var st struct {
			Details struct {
				Sustained *float64 `json:"sustained_rate"`
			} `json:"details"`
		}
		readJSON(t, filepath.Join(out, "rep-"+strconv.Itoa(i), "pebble", "steps", "l.max.json"), &st)
		if st.Details.Sustained == nil || *st.Details.Sustained <= 0 {
			t.Fatalf("rep-%d: l.max has no sustained rate: %v", i, st.Details.Sustained)
		}
		reps = append(reps, *st.Details.Sustained)
	}
	median := slices.Sorted(slices.Values(reps))[1]

	var sum struct {
		Steps []struct {
			Step string `json:"step"`
			Rows []struct {
				Values map[string]*float64 `json:"values"`
				Stats  map[string]struct {
					N      int       `json:"n"`
					Values []float64 `json:"values"`
					Median float64   `json:"median"`
					CILo   *float64  `json:"ci_lo"`
					Note   string    `json:"note"`
				} `json:"stats"`
			} `json:"rows"`
		} `json:"steps"`
	}
	readJSON(t, filepath.Join(out, "summary.json"), &sum)
	found := false
	for _, s := range sum.Steps {
		if s.Step != "l.max" || len(s.Rows) != 1 {
			continue
		}
		found = true
		st, ok := s.Rows[0].Stats["sustained_rate"]
		if !ok || st.N != 3 || !slices.Equal(st.Values, reps) || st.Median != median {
			t.Errorf("summary's sustained_rate %+v, want n 3, values %v, median %g", st, reps, median)
		}
		if st.CILo != nil || !strings.Contains(st.Note, ">= 6") {
			t.Errorf("3 repetitions bound a median: ci_lo %v, note %q", st.CILo, st.Note)
		}
		// A percentile over intervals run at the probes' different
		// targets says nothing: none.
		if v := s.Rows[0].Values["rate_pct"]; v != nil {
			t.Errorf("l.max has a rate percentile %g", *v)
		}
	}
	if !found {
		t.Fatalf("summary.json has no l.max row")
	}
	// The terminal's l.max table shows the median with its interval
	// (unbounded: ±∞).
	table := stdout[strings.Index(stdout, "## l.max"):]
	table = table[:strings.Index(table, "\n\n#")]
	if !regexp.MustCompile(`\|\s+` + regexp.QuoteMeta(units.Num(median)) + ` ±∞ \|`).MatchString(table) {
		t.Errorf("l.max table without the median sustained rate %s ±∞:\n%s", units.Num(median), table)
	}

	show, stderr, code := rb(t, "history", "show", "--history", hist, "--step", "l.max", "--figure", "sustained_rate")
	if code != 0 {
		t.Fatalf("history show: exit %d: %s", code, stderr)
	}
	row := regexp.MustCompile(`(?m)^\s+\d+\s+\d{4}-\d\d-\d\d \d\d:\d\d .*\s(\S+)\s*$`)
	var listed []float64
	for _, m := range row.FindAllStringSubmatch(show, -1) {
		v, err := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64)
		if err != nil {
			t.Fatalf("history row %q: %v", m[0], err)
		}
		listed = append(listed, v)
	}
	if !strings.Contains(show, "sustained_rate") || !slices.Equal(listed, reps) {
		t.Errorf("history show lists sustained_rate %v, want the 3 runs' %v:\n%s", listed, reps, show)
	}
}
