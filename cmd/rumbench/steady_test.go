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
			// The window is a duration: on a loaded host a late tick makes
			// an interval longer than 200 ms, so 1 s may be two of them,
			// the fewest the rule judges.
			if c.reached && (ss.AtS < 0.99 || ss.Window.N < 2) {
				t.Errorf("reached at %v s over %d intervals: a 1 s window needs at least 1 s and 2 intervals", ss.AtS, ss.Window.N)
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
		{"rate:dev=10%,window=1s,max=1h", []string{"--steady-state", "at least two intervals"}},
	} {
		wantBadInput(t, c.want, "run", "linkbench", "--engine", "null", "--interval", "1s", "--steady-state", c.rule, "--out", out)
	}
	// Hot rows only update: write amplification has no denominator.
	wantBadInput(t, []string{"--steady-state wamp:", "step t1c1 inserts no rows", "use rate, wkb or size"},
		"run", "hotrow", "--engine", "null", "--preset", "quick", "--interval", "1s", "--steady-state", "wamp:dev=10%,window=60s,max=1h", "--out", out)
}

// The wkb, wamp and size metrics judge figures the sampler takes at each
// interval (one interval behind the clock): the rule sees real values, so
// its last window's mean is positive, whether or not it held.
func TestSteadyStateSampledMetrics(t *testing.T) {
	t.Parallel()
	for _, metric := range []string{"wkb", "wamp", "size"} {
		t.Run(metric, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "r")
			// sync=true: each commit reaches the device, whose bytes the
			// wkb and wamp rules watch (with pebble's default, the kernel
			// may write nothing back for a whole 1 s window).
			_, stderr, code := rb(t, "run", "linkbench", "--engine", "pebble", "--engine-opt", "sync=true", "--nodes", "2000", "--request-seconds", "1",
				"--interval", "200ms", "--steady-state", metric+":dev=99%,window=1s,max=4s", "--out", out)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var st results.Step
			readJSON(t, filepath.Join(out, "pebble", "steps", "request.json"), &st)
			ss := st.SteadyState
			if ss == nil || !strings.HasPrefix(ss.Rule, metric+":") || ss.Window.N < 2 || !(ss.Window.Mean > 0) {
				t.Fatalf("steady_state = %+v, want a %s rule judged over real values", ss, metric)
			}
			if metric == "size" && ss.Window.Mean < 4096 {
				t.Errorf("size window mean %v bytes: not a data dir's size", ss.Window.Mean)
			}
		})
	}
}

// --churn-seconds makes l.i1 and l.i2 time-bounded: they insert and delete
// until the time is up (the table size unchanged), run.json records the
// length like the query steps', and --steady-state applies to them.
func TestChurnSeconds(t *testing.T) {
	t.Parallel()
	for _, eng := range []string{"pebble", "sqlite"} {
		t.Run(eng, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "r")
			_, stderr, code := rb(t, "run", "ibench", "--engine", eng, "--clients", "1", "--rows", "5000", "--indexes", "1",
				"--steps", "l.i0,l.x,l.i1,l.i2", "--churn-seconds", "1", "--interval", "200ms",
				"--steady-state", "rate:dev=90%,window=600ms,max=5s", "--out", out)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var run results.Run
			readJSON(t, filepath.Join(out, eng, "run.json"), &run)
			cfg, _ := run.Config.(map[string]any)
			if ib, _ := cfg["ibench"].(map[string]any); ib["churn_seconds"] != 1.0 {
				t.Errorf("run.json config %v, want ibench.churn_seconds 1", run.Config)
			}
			for _, step := range []string{"l.i1", "l.i2"} {
				var st results.Step
				readJSON(t, filepath.Join(out, eng, "steps", step+".json"), &st)
				if st.TimeBoundedS != 1 {
					t.Errorf("%s: time_bounded_s %v, want 1", step, st.TimeBoundedS)
				}
				if st.SteadyState == nil || !st.SteadyState.Reached {
					t.Errorf("%s: steady_state %+v, want a loose rule reached", step, st.SteadyState)
				}
				if st.Seconds < 0.9 || st.Seconds > 2 {
					t.Errorf("%s: measured %v s, want about 1", step, st.Seconds)
				}
				if growth, _ := results.Number(st.Details["table_growth_rows"]); growth != 0 {
					t.Errorf("%s: the table grew by %v rows, want constant size", step, growth)
				}
				if ins := st.Ops["insert"]; ins == nil || ins.Rows == 0 {
					t.Errorf("%s: no rows inserted", step)
				}
			}
		})
	}
}

// Write amplification leaves the warm-up out of its denominator too: a
// query step warmed up for as long as it is measured reports the logical
// bytes of its measured rows only (per row as many as the load's), not
// twice as many.
func TestWarmupLeftOutOfLogicalBytes(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "r")
	_, stderr, code := rb(t, "run", "ibench", "--engine", "pebble", "--clients", "1", "--rows", "2000", "--indexes", "0",
		"--steps", "l.i0,qr100", "--query-seconds", "3", "--warmup", "3s", "--interval", "500ms", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	perRow := func(step string) float64 {
		var st results.Step
		readJSON(t, filepath.Join(out, "pebble", "steps", step+".json"), &st)
		b, _ := results.Number(st.Details[results.DetailLogicalBytesInserted])
		ins := st.Ops["insert"]
		if ins == nil || ins.Rows == 0 {
			t.Fatalf("%s: no rows inserted", step)
		}
		return b / float64(ins.Rows)
	}
	load, query := perRow("l.i0"), perRow("qr100")
	// One batch of 50 rows generated across the warm-up's end is the
	// only slack: within a third of 300 measured rows.
	if r := query / load; r < 0.75 || r > 1.35 {
		t.Fatalf("qr100 reports %.1f logical bytes per measured row, the load %.1f: the warm-up's rows are counted", query, load)
	}
}
