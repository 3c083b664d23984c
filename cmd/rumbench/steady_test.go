package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"rumbench/internal/results"
)

// --steady-state on LinkBench's request step: a loose rule is reached and
// the step is then measured for its own length, the intervals before it
// logged as warm-up; a rule that cannot hold within its limit is recorded
// as not reached, and the step is measured after the limit.
func TestSteadyState(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, rule string
		reached    bool
	}{
		{"reached", "rate:dev=90%,window=1s,max=20s", true},
		{"not reached", "rate:dev=0.001%,window=1s,max=1s", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "r")
			stdout, stderr, code := rb(t, "run", "linkbench", "--engine", "pebble", "--nodes", "2000", "--request-seconds", "1",
				"--interval", "200ms", "--steady-state", c.rule, "--out", out)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var st results.Step
			readJSON(t, filepath.Join(out, "pebble", "steps", "request.json"), &st)
			ss := st.SteadyState
			if ss == nil || ss.Reached != c.reached || ss.Rule == "" {
				t.Fatalf("steady_state = %+v, want reached=%v", ss, c.reached)
			}
			// The report says how the step got there.
			note := map[bool]string{true: "requests measured after ", false: "NOT STEADY: requests measured after the rule"}[c.reached]
			if !strings.Contains(stdout, note) {
				t.Errorf("the run's report does not say %q", note)
			}
			if c.reached && (ss.AtS < 0.99 || ss.Window.N < 3) {
				t.Errorf("reached at %v s over %d intervals: a 1 s window of 200 ms intervals needs at least 1 s and 3 of them", ss.AtS, ss.Window.N)
			}
			if !c.reached && ss.AtS != 0 {
				t.Errorf("not reached but at_s %v", ss.AtS)
			}
			// Measured for its own second after the warm-up.
			if st.Seconds < 0.9 || st.Seconds > 1.5 {
				t.Errorf("measured %v s, want about 1", st.Seconds)
			}
			f, err := os.Open(filepath.Join(out, "pebble", "intervals.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			warm, measured, warmS := 0, 0, 0.0
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 1<<24)
			for sc.Scan() {
				var iv struct {
					Step    string  `json:"step"`
					Warmup  bool    `json:"warmup"`
					Seconds float64 `json:"seconds"`
				}
				if err := json.Unmarshal(sc.Bytes(), &iv); err != nil {
					t.Fatal(err)
				}
				if iv.Step != "request" {
					continue
				}
				if iv.Warmup {
					if measured > 0 {
						t.Fatal("a warm-up interval after a measured one")
					}
					warm++
					warmS += iv.Seconds
				} else {
					measured++
				}
			}
			// The rule judges a 1 s window (reached) or gives up after 1 s
			// (not reached): either way at least 1 s of warm-up.
			if warm < 3 || warmS < 0.99 || measured < 3 {
				t.Errorf("%d warm-up intervals (%.2f s) and %d measured, want at least 1 s of warm-up and 3 measured", warm, warmS, measured)
			}
		})
	}
}

func TestSteadyStateBadInput(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "r")
	for _, c := range []struct {
		rule string
		want []string
	}{
		{"rate:dev=10%,window=60s", []string{"--steady-state", "no max"}},
		{"iops:dev=10%,window=60s,max=1h", []string{"--steady-state", `unknown metric "iops"`}},
		{"wamp:dev=10%,window=60s,max=1h", []string{"--steady-state", "only rate and wkb"}},
		{"rate:dev=10%,window=1s,max=1h", []string{"--steady-state", "at least two intervals"}},
	} {
		wantBadInput(t, c.want, "run", "linkbench", "--engine", "null", "--interval", "1s", "--steady-state", c.rule, "--out", out)
	}
}

// The wkb metric judges the device KB written per request of each interval
// (one interval behind the clock): the rule sees real values, so its last
// window's mean is positive, whether or not it held.
func TestSteadyStateWKB(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "r")
	_, stderr, code := rb(t, "run", "linkbench", "--engine", "pebble", "--nodes", "2000", "--request-seconds", "1",
		"--interval", "200ms", "--steady-state", "wkb:dev=99%,window=1s,max=4s", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var st results.Step
	readJSON(t, filepath.Join(out, "pebble", "steps", "request.json"), &st)
	ss := st.SteadyState
	if ss == nil || !strings.HasPrefix(ss.Rule, "wkb:") || ss.Window.N < 3 || !(ss.Window.Mean > 0) {
		t.Fatalf("steady_state = %+v, want a wkb rule judged over real values", ss)
	}
}
