package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"rumbench/internal/plan"
	"rumbench/internal/sweep"
	"rumbench/internal/workload"
	"rumbench/internal/workload/ibench"
)

// helpOf runs `rumbench ARGS --help` in-process and returns its output.
func helpOf(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := runWith(append(args, "--help"), &out, &errb); code != 0 {
		t.Fatalf("%v --help: exit %d: %s", args, code, errb.String())
	}
	return out.String()
}

// flagHelp maps each flag of a help text to its description.
func flagHelp(help string) map[string]string {
	out := map[string]string{}
	re := regexp.MustCompile(`^\s+(?:-\w, )?--([a-z0-9-]+)(?: \S+)?\s{2,}(.*)$`)
	for _, line := range strings.Split(help, "\n") {
		if m := re.FindStringSubmatch(line); m != nil {
			out[m[1]] = m[2]
		}
	}
	return out
}

// presetValues parses a flag's "(default: from --preset: quick V, small W)"
// into preset -> value; ok is false when the help has no such list.
func presetValues(desc string) (map[string]string, bool) {
	i := strings.Index(desc, workload.PresetHelpPrefix)
	if i < 0 {
		return nil, false
	}
	list := strings.TrimSuffix(desc[i+len(workload.PresetHelpPrefix):], ")")
	out := map[string]string{}
	for _, kv := range strings.Split(list, ", ") {
		name, v, _ := strings.Cut(kv, " ")
		out[name] = v
	}
	return out, true
}

// mentionsPresetDefault reports whether a flag's help says its default comes
// from the preset, in any wording.
func mentionsPresetDefault(desc string) bool {
	return strings.Contains(desc, "(default: from the preset") || strings.Contains(desc, workload.PresetHelpPrefix)
}

// Every preset-dependent default `run NAME --help` prints is the one a run
// of that preset uses: giving the printed value explicitly configures the
// same run as leaving the flag out. Each workload's preset-dependent flags
// list every preset's value (old help said "quick: 250000" while quick
// loaded 1000000 rows, and nothing for the other presets).
func TestRunHelpPresetDefaultsAreWhatRuns(t *testing.T) {
	want := map[string][]string{
		"ibench":    {"clients", "rows", "churn-rows", "churn-seconds", "indexes", "query-seconds", "steps"},
		"hotrow":    {"rows", "tables", "concurrency", "cell-seconds"},
		"linkbench": {"nodes", "request-seconds"},
	}
	for _, name := range workload.Names() {
		d, _ := workload.Lookup(name)
		flags := flagHelp(helpOf(t, "run", name))
		checked := map[string]bool{}
		for flag, desc := range flags {
			vals, ok := presetValues(desc)
			if !ok {
				if mentionsPresetDefault(desc) {
					t.Errorf("run %s --help: --%s says its default comes from the preset but does not list each preset's: %q", name, flag, desc)
				}
				continue
			}
			checked[flag] = true
			for _, p := range d.PresetNames() {
				v, ok := vals[p]
				if !ok {
					t.Errorf("run %s --help: --%s lists no default for preset %s: %q", name, flag, p, desc)
					continue
				}
				implicit := configure(t, d, p)
				explicit := configure(t, d, p, "--"+flag+"="+v)
				if !reflect.DeepEqual(implicit, explicit) {
					t.Errorf("run %s --preset %s: help says --%s defaults to %s, but giving it configures another run:\n without: %s\n with:    %s", name, p, flag, v, implicit, explicit)
				}
			}
		}
		for _, f := range want[name] {
			if !checked[f] {
				t.Errorf("run %s --help: --%s does not list its default per preset (%q)", name, f, flags[f])
			}
		}
	}
}

// configure builds the configuration a run of workload d with the preset
// and args would use, as JSON (run.json records it so).
func configure(t *testing.T, d *workload.Definition, preset string, args ...string) string {
	t.Helper()
	fs := pflag.NewFlagSet(d.Name, pflag.ContinueOnError)
	conf := d.Flags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("%s %v: %v", d.Name, args, err)
	}
	c, err := conf(workload.Common{Preset: preset, Seed: 1, Interval: time.Second, Changed: func(n string) bool { return fs.Changed(n) }})
	if err != nil {
		t.Fatalf("%s --preset %s %v: %v", d.Name, preset, args, err)
	}
	b, err := json.Marshal(map[string]any{"config": c.Config, "sizes": c.Sizes, "memory": c.Memory})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// intervalDefaults parses --interval's help: "(default 1s; from --preset:
// ibench quick 200ms)" into the default and workload+" "+preset -> interval.
func intervalDefaults(t *testing.T, desc string) (time.Duration, map[string]time.Duration) {
	t.Helper()
	m := regexp.MustCompile(`\(default ([0-9a-zµ.]+)(?:; from --preset: ([^)]*))?\)$`).FindStringSubmatch(desc)
	if m == nil {
		t.Fatalf("--interval help has no default: %q", desc)
	}
	def, err := time.ParseDuration(m[1])
	if err != nil {
		t.Fatalf("--interval help default %q: %v", m[1], err)
	}
	own := map[string]time.Duration{}
	if m[2] != "" {
		for _, e := range strings.Split(m[2], ", ") {
			f := strings.Fields(e)
			if len(f) != 3 {
				t.Fatalf("--interval help: %q is not WORKLOAD PRESET INTERVAL", e)
			}
			v, err := time.ParseDuration(f[2])
			if err != nil {
				t.Fatalf("--interval help %q: %v", e, err)
			}
			own[f[0]+" "+f[1]] = v
		}
	}
	return def, own
}

// --interval's help gives the interval every workload's every preset runs
// at (old help said "default 1s" while the quick preset ran at 100 ms), and
// a real run of the default workload and preset records that interval.
func TestRunHelpIntervalIsWhatRuns(t *testing.T) {
	desc := flagHelp(helpOf(t, "run"))["interval"]
	def, own := intervalDefaults(t, desc)
	for _, name := range workload.Names() {
		d, _ := workload.Lookup(name)
		for _, p := range d.PresetNames() {
			want := def
			if v, ok := own[name+" "+p]; ok {
				want = v
			}
			if got := plan.PresetInterval(d, p); got != want {
				t.Errorf("run %s --preset %s runs at %s intervals, help says %s (%q)", name, p, got, want, desc)
			}
		}
	}
	// The real path: the default run's run.json.
	out := filepath.Join(t.TempDir(), "out")
	if so, se, code := rb(t, "run", "--engine", "null", "--rows", "2000", "--steps", "l.i0", "--out", out); code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, so, se)
	}
	raw, err := os.ReadFile(filepath.Join(out, "null", "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var run struct {
		Config struct {
			IntervalS float64 `json:"interval_s"`
		} `json:"config"`
	}
	if err := json.Unmarshal(raw, &run); err != nil {
		t.Fatal(err)
	}
	want := def
	if v, ok := own[defaultWorkload+" quick"]; ok {
		want = v
	}
	if got := time.Duration(run.Config.IntervalS * float64(time.Second)); got != want {
		t.Errorf("the default run recorded interval %s, help says %s", got, want)
	}
}

// Every preset-dependent default `sweep --help` prints is the one the sweep
// runs with: giving it explicitly resolves to the same rows, churn, query
// seconds, interval and index counts.
func TestSweepHelpPresetDefaultsAreWhatRuns(t *testing.T) {
	flags := flagHelp(helpOf(t, "sweep"))
	checked := map[string]bool{}
	for flag, desc := range flags {
		vals, ok := presetValues(desc)
		if !ok {
			if mentionsPresetDefault(desc) {
				t.Errorf("sweep --help: --%s says its default comes from the preset but does not list each preset's: %q", flag, desc)
			}
			continue
		}
		checked[flag] = true
		for _, p := range ibench.PresetOrder {
			v, ok := vals[p]
			if !ok {
				t.Errorf("sweep --help: --%s lists no default for preset %s", flag, p)
				continue
			}
			implicit := resolveSweep(t, p)
			explicit := resolveSweep(t, p, "--"+flag+"="+v)
			if !reflect.DeepEqual(implicit, explicit) {
				t.Errorf("sweep --preset %s: help says --%s defaults to %s, but giving it resolves otherwise:\n without: %+v\n with:    %+v", p, flag, v, implicit, explicit)
			}
		}
	}
	for _, f := range []string{"rows", "churn-rows", "query-seconds", "interval", "indexes"} {
		if !checked[f] {
			t.Errorf("sweep --help: --%s does not list its default per preset (%q)", f, flags[f])
		}
	}
}

// resolveSweep is what a sweep with --preset p and args runs with.
func resolveSweep(t *testing.T, p string, args ...string) []any {
	t.Helper()
	f := &sweepFlags{}
	cmd := newSweepCmdWith(f)
	if err := cmd.ParseFlags(append([]string{"--preset", p}, args...)); err != nil {
		t.Fatal(err)
	}
	f.out = "resolve" // required; nothing is written
	req, err := sweepRequest(cmd.Flags(), f)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := plan.PlanSweep(req)
	if err != nil {
		t.Fatal(err)
	}
	cfg := sp.CellConfig(sweep.Cell{}).(ibench.Config)
	return []any{cfg.Rows, cfg.ChurnRows, cfg.QuerySeconds, sp.Interval, sp.AxisValues(ibench.AxisIndexes)}
}
