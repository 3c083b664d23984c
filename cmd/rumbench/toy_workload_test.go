package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"rumbench/internal/measure"
	"rumbench/internal/model"
	"rumbench/internal/results"
	"rumbench/internal/workload"
)

// The toy "ping" workload lives entirely in this test file: it registers
// itself like any workload and is run through `rumbench run`, the bundle
// and `rumbench report` without any other file knowing it. Its one
// operation, ping, is a point read of one key.
func init() {
	workload.Register(&workload.Definition{
		Name:        "ping",
		Description: "test double: point reads of one key",
		Presets:     []workload.Preset{{Name: "quick", Description: "a second"}},
		Flags: func(fs *pflag.FlagSet) workload.Configurer {
			pings := fs.Int64("pings", 2000, "pings of the count-bounded step")
			return func(c workload.Common) (*workload.Configured, error) {
				if *pings < 1 {
					return nil, fmt.Errorf("--pings must be at least 1, got %d", *pings)
				}
				n := *pings
				return &workload.Configured{
					Config: map[string]any{"pings": n},
					Sizes:  map[string]any{"pings": n},
					Banner: fmt.Sprintf("%d pings", n),
					New:    func() (workload.Workload, error) { return &ping{n: n}, nil },
				}, nil
			}
		},
	})
}

var pingOps = measure.Ops{{Name: "ping", Unit: measure.UnitOps, Role: measure.RoleRead, Short: "p", RateLabel: "PPS"}}

type ping struct{ n int64 }

var pingTable = &model.Table{
	Name:    "ping",
	Columns: []model.Column{{Name: "id", Type: model.Int}},
	PK:      []int{0},
}

func (p *ping) Name() string     { return "ping" }
func (p *ping) Ops() measure.Ops { return pingOps }
func (p *ping) Tables() []string { return []string{pingTable.Name} }
func (p *ping) Prepare(ctx context.Context, db model.DB) error {
	if err := db.CreateTable(ctx, pingTable); err != nil {
		return err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Insert(ctx, pingTable, []model.Row{{{Int: 1}}})
}

func (p *ping) Steps() []workload.Step {
	return []workload.Step{
		{Name: "pings", MainOp: "ping", Work: p.n, Run: func(ctx context.Context, env *workload.Env) error {
			return pingLoop(ctx, env, func(done int64) bool { return done < p.n })
		}},
		{Name: "ping1s", MainOp: "ping", Seconds: 1, Run: func(ctx context.Context, env *workload.Env) error {
			end := time.Now().Add(time.Second)
			return pingLoop(ctx, env, func(int64) bool { return time.Now().Before(end) })
		}},
	}
}

func pingLoop(ctx context.Context, env *workload.Env, more func(done int64) bool) error {
	conn, err := env.DB.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	rec := env.Clock.Recorder()
	key := []model.Row{{{Int: 1}}}
	for done := int64(0); more(done); done++ {
		start := time.Now()
		n, err := conn.Get(ctx, pingTable, key, func(model.Row) {})
		rec.Record(0, n, time.Since(start), err != nil)
		if err != nil {
			return err
		}
	}
	return nil
}

func TestToyWorkloadThroughRunBundleAndReport(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	var so, se bytes.Buffer
	if code := runWith([]string{"run", "ping", "--engine", "pebble", "--pings", "3000", "--interval", "200ms", "--out", out}, &so, &se); code != 0 {
		t.Fatalf("run ping: exit %d\nstdout:\n%s\nstderr:\n%s", code, so.String(), se.String())
	}
	stdout := so.String()
	for _, want := range []string{"workload ping", "3000 pings", "ping ", "PPS.av(p/s)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("run output lacks %q:\n%s", want, stdout)
		}
	}
	b, err := results.Read(filepath.Join(out, "pebble"))
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Run.Ops) != 1 || b.Run.Ops[0].Name != "ping" || b.Run.Sizes["pings"] != float64(3000) {
		t.Errorf("run.json ops %+v sizes %v", b.Run.Ops, b.Run.Sizes)
	}
	s := b.Steps["pings"]
	if s == nil || s.MainOp != "ping" || s.Ops["ping"] == nil || s.Ops["ping"].Count != 3000 || s.Ops["ping"].Rows != 3000 {
		t.Fatalf("pings step %+v", s)
	}
	if s.Metrics == nil || s.Metrics.PerOp["ping"] == nil || s.Metrics.PerOp["ping"].CPUUs == nil {
		t.Errorf("pings step has no CPU per ping: %+v", s.Metrics)
	}
	if st := s.Stalls["ping"]; st == nil {
		t.Errorf("pings step has no stall judgement")
	}
	if timed := b.Steps["ping1s"]; timed == nil || timed.TimeBoundedS != 1 || timed.Ops["ping"] == nil {
		t.Errorf("ping1s step %+v", timed)
	}

	so.Reset()
	se.Reset()
	if code := runWith([]string{"report", out}, &so, &se); code != 0 {
		t.Fatalf("report: exit %d: %s", code, se.String())
	}
	for _, want := range []string{"## pings (write step)", "PPS.av(p/s)", "CPU/p(µs)", "rKB/p", "## ping1s", "| ping1s(p/s)"} {
		if !strings.Contains(so.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, so.String())
		}
	}
	// A flag of another workload is refused for ping, and ping's own flag
	// for the others.
	for _, args := range [][]string{
		{"run", "ping", "--indexes", "1", "--engine", "null"},
		{"run", "--pings", "5", "--engine", "null"},
	} {
		so.Reset()
		se.Reset()
		if code := runWith(args, &so, &se); code != exitBadInput || !strings.Contains(se.String(), "applies to workload") {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming the owning workload", args, code, se.String())
		}
	}
}

// Each workload's help lists its own flags and the shared ones, not
// another workload's; `rumbench workloads` lists every registered one.
func TestWorkloadHelpShowsOwnFlags(t *testing.T) {
	for _, c := range []struct {
		args       []string
		want, lack []string
	}{
		{[]string{"run", "hotrow", "--help"}, []string{"--tables", "--cell-seconds", "--engine", "--preset"}, []string{"--indexes", "--churn-rows", "--pings"}},
		{[]string{"run", "--workload", "hotrow", "--help"}, []string{"--tables"}, []string{"--indexes"}},
		// --tables is both workloads' (clients per table in ibench).
		{[]string{"run", "--help"}, []string{"--indexes", "--churn-rows", "--engine", "hotrow", "ibench", "--tables", "--unique-index"}, []string{"--cell-seconds", "--concurrency"}},
		{[]string{"run", "ping", "--help"}, []string{"--pings", "--engine"}, []string{"--indexes", "--tables"}},
		{[]string{"workloads"}, []string{"ibench (default):", "hotrow:", "ping:", "--preset quick"}, nil},
	} {
		var so, se bytes.Buffer
		if code := runWith(c.args, &so, &se); code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, se.String())
		}
		for _, w := range c.want {
			if !strings.Contains(so.String(), w) {
				t.Errorf("%v lacks %q", c.args, w)
			}
		}
		for _, l := range c.lack {
			if strings.Contains(so.String(), l) {
				t.Errorf("%v shows %q, a flag of another workload", c.args, l)
			}
		}
	}
}

// The engine's maintenance is its own step between the write and the query
// steps: timed on engines that have one, recorded as skipped on the others,
// and gone with --maintain=false.
func TestMaintenanceStep(t *testing.T) {
	dir := t.TempDir()
	args := []string{"run", "--rows", "2000", "--churn-rows", "500", "--query-seconds", "0.5",
		"--interval", "200ms", "--indexes", "0", "--steps", "l.i0,l.i1,maint,qr100"}
	var so, se bytes.Buffer
	if code := runWith(append(args, "--engine", "sqlite,bbolt", "--out", filepath.Join(dir, "a")), &so, &se); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, so.String(), se.String())
	}
	sq, err := results.Read(filepath.Join(dir, "a", "sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	m := sq.Steps["maint"]
	if m == nil || !m.Complete || m.MainOp != "maintain" || m.Ops["maintain"] == nil || m.Ops["maintain"].Count != 1 || m.Details["maintenance"] != "done" {
		t.Fatalf("sqlite maint step %+v", m)
	}
	if m.Metrics == nil || m.Metrics.CPUUs == nil {
		t.Errorf("maint step has no CPU total: %+v", m.Metrics)
	}
	bb, err := results.Read(filepath.Join(dir, "a", "bbolt"))
	if err != nil {
		t.Fatal(err)
	}
	if m := bb.Steps["maint"]; m == nil || !strings.HasPrefix(fmt.Sprint(m.Details["maintenance"]), "skipped") {
		t.Errorf("bbolt maint step %+v: want skipped", m)
	}
	so.Reset()
	if code := runWith(append(args, "--maintain=false", "--engine", "sqlite", "--out", filepath.Join(dir, "b")), &so, &se); code != 0 {
		t.Fatalf("exit %d\n%s", code, se.String())
	}
	b, err := results.Read(filepath.Join(dir, "b", "sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(b.Run.Steps, ",") != "l.i0,l.i1,qr100" {
		t.Errorf("--maintain=false ran steps %v", b.Run.Steps)
	}
}

// --warmup: a query step runs its load for the warm-up first; those
// intervals are logged with warmup and left out of the step's figures.
func TestWarmup(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	var so, se bytes.Buffer
	args := []string{"run", "--engine", "pebble", "--rows", "2000", "--indexes", "1", "--query-seconds", "1", "--warmup", "1s",
		"--interval", "200ms", "--steps", "l.i0,l.x,qr100", "--out", out}
	if code := runWith(args, &so, &se); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, so.String(), se.String())
	}
	if !strings.Contains(so.String(), "[warm-up,") {
		t.Errorf("live output shows no warm-up:\n%s", so.String())
	}
	b, err := results.Read(filepath.Join(out, "pebble"))
	if err != nil {
		t.Fatal(err)
	}
	warm, measured := 0, 0
	for _, iv := range b.Intervals {
		if iv.Step != "qr100" {
			continue
		}
		if iv.Warmup {
			warm++
		} else {
			measured++
		}
	}
	if warm != 5 || measured < 5 {
		t.Errorf("qr100: %d warm-up and %d measured intervals, want 5 and at least 5", warm, measured)
	}
	s := b.Steps["qr100"]
	if s.WarmupS != 1 || s.Seconds < 0.9 || s.Seconds > 1.6 {
		t.Errorf("qr100 warmup_s %g, measured seconds %g: want 1 and about 1", s.WarmupS, s.Seconds)
	}
	// The hot-row sweep has no warm-up yet: refused, not ignored.
	se.Reset()
	if code := runWith([]string{"run", "hotrow", "--engine", "null", "--warmup", "1s"}, &so, &se); code != exitBadInput {
		t.Errorf("hotrow --warmup: exit %d, want 2 (%s)", code, se.String())
	}
}
