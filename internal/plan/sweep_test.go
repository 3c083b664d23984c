package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"rumbench/internal/launch"
	"rumbench/internal/runner"
	"rumbench/internal/sweep"
	"rumbench/internal/workload"
	"rumbench/internal/workload/ibench"

	"github.com/spf13/pflag"
)

// sweepRequest is an insert benchmark sweep at the command's defaults
// with args given to the workload's sweep flags (and --interval).
func sweepRequest(args ...string) *Sweep {
	sw, err := workload.SweeperOf("ibench")
	if err != nil {
		panic(err)
	}
	fs := pflag.NewFlagSet("sweep", pflag.ContinueOnError)
	cell := sw.SweepFlags(fs)
	fs.Duration("interval", 0, "")
	if err := fs.Parse(args); err != nil {
		panic(err)
	}
	return &Sweep{
		Given: fs.Changed, Workload: "ibench", Cell: cell, Axes: map[string][]string{},
		Out: "s", Engines: Engines("pebble", "sqlite"), Preset: "quick", RatePercentile: runner.DefaultRatePercentile, Seed: 1,
		Database: "rumbench", Repeat: 1,
	}
}

// The plan of the stored sweep writes its cells' config byte for byte, and
// its grid as sweep.json has it.
func TestSweepAsStored(t *testing.T) {
	r := sweepRequest("--rows=5000", "--churn-rows=500", "--query-seconds=0.5")
	r.Axes[ibench.AxisIndexes] = []string{"0", "3"}
	p, spec := planSpec(t, r)
	if names := []string{spec.Cells()[0].Name(), spec.Cells()[1].Name()}; len(spec.Cells()) != 2 || names[1] != "x3-pad20-c1" {
		t.Fatalf("cells %v", names)
	}
	o := p.CellOptions(spec.Cells()[1], "pebble", "s/x3-pad20-c1")
	got, err := json.MarshalIndent(o.Config, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../results/testdata/config/sweep-x3-pad20-c1-pebble.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(append(got, '\n'), want) {
		t.Errorf("cell config:\n%s\nwant\n%s", got, want)
	}
	if o.Database != "rumbench_x3_pad20_c1" || o.EngineOpts["cache_size"] != "268435456" {
		t.Errorf("cell options: database %q, engine settings %v", o.Database, o.EngineOpts)
	}
	file, _ := json.Marshal(spec)
	if s := string(file); s != `{"engines":["pebble","sqlite"],"indexes":[0,3],"pad_sizes":[20],"pad_random_pct":50,"clients":[1],"steps":["l.i0x"],`+
		`"shared":{"cache_size":{"bytes":268435456,"from":"default"},"churn_rows":500,"engine_opts":{"pebble.cache_size":"268435456","sqlite.cache_size":"268435456"},"interval_s":0.2,"preset":"quick","query_seconds":0.5,"rate_percentile":99,"rows":5000,"rows_per_commit":0,"seed":1}}` {
		t.Errorf("sweep.json: %s", s)
	}
}

// The preset decides what was not given; the iobound preset compares no
// index with three and sizes a memory limit per engine.
func TestSweepPreset(t *testing.T) {
	p, err := PlanSweep(sweepRequest())
	if err != nil {
		t.Fatal(err)
	}
	q := ibench.Presets["quick"]
	cfg := p.CellConfig(sweep.Cell{}).(ibench.Config)
	if cfg.Rows != q.Rows || cfg.ChurnRows != q.ChurnRows || cfg.QuerySeconds != q.QuerySeconds || p.Interval != q.RunInterval() || !reflect.DeepEqual(p.AxisValues(ibench.AxisIndexes), []int{0, 1, 2, 3}) {
		t.Errorf("quick: %+v, %+v", p, cfg)
	}
	r := sweepRequest("--interval=5s")
	r.Preset, r.Interval = "iobound", 5*time.Second
	r.Axes[ibench.AxisClients] = []string{"1", "2"}
	if p, err = PlanSweep(r); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.AxisValues(ibench.AxisIndexes), []int{0, 3}) || p.Interval != 5*time.Second || p.Memory.PerEngine["pebble"] == 0 || p.Memory.Limit == "" {
		t.Errorf("iobound: indexes %v, interval %v, memory %+v", p.AxisValues(ibench.AxisIndexes), p.Interval, p.Memory)
	}
	// The memory preset is sized for the cells' most clients.
	if want := ibench.IOBoundMemory(ibench.Presets["iobound"].Rows, 2); fmt.Sprint(p.Memory.Preset["pebble.cache_size"]) != fmt.Sprint(want.CacheBytes) {
		t.Errorf("iobound memory preset %v, want a cache of %d", p.Memory.Preset, want.CacheBytes)
	}
}

func TestSweepBadInput(t *testing.T) {
	for _, c := range []struct {
		set  func(r *Sweep)
		want string
	}{
		{func(r *Sweep) { r.Out = "" }, "--out is required"},
		{func(r *Sweep) { r.Repeat = 0 }, "--repeat must be between 1 and 100"},
		{func(r *Sweep) { r.Axes[ibench.AxisPadSizes] = []string{"abc"} }, `--pad-sizes "abc"`},
		{func(r *Sweep) { r.Axes[ibench.AxisIndexes] = []string{"4"} }, "--indexes values must be between 0 and 3, got 4"},
		{func(r *Sweep) { r.Preset = "nope" }, `unknown --preset "nope"`},
		{func(r *Sweep) { r.RatePercentile = 101 }, "--rate-percentile must be above 0 and at most 100, got 101"},
		{func(r *Sweep) { r.Given = func(n string) bool { return n == "interval" } }, "--interval must be positive, got 0s"},
	} {
		r := sweepRequest()
		c.set(r)
		if _, err := PlanSweep(r); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
	// A cell's configuration is checked before anything runs.
	if _, err := PlanSweep(sweepRequest("--rows-per-commit=-1")); err == nil || !strings.HasPrefix(err.Error(), "cell x0-pad20-c1: ") {
		t.Errorf("a bad cell: %v", err)
	}
}

// planSpec plans r and its grid without a memory setup, failing the test
// on a refusal.
func planSpec(t *testing.T, r *Sweep) (*SweepPlan, *sweep.Spec) {
	t.Helper()
	p, err := PlanSweep(r)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := p.Spec(&launch.Memory{})
	if err != nil {
		t.Fatal(err)
	}
	return p, spec
}
