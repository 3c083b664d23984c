package history

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rumbench/internal/measure"
	"rumbench/internal/model"
	"rumbench/internal/results"
)

// writeBundle writes a one-step bundle (l.i0 of the insert benchmark on
// pebble) whose insert rate is rate and whose engine settings are
// settings, started at start: a series point made to order.
func writeBundle(t *testing.T, dir string, start time.Time, settings map[string]string, rate float64) {
	t.Helper()
	w, err := results.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	fin := start.Add(time.Second)
	run := &results.Run{
		SchemaVersion: results.SchemaVersion,
		Tool:          results.Tool{Name: "rumbench", Version: "0.9.0", Commit: "c0ffee"},
		Workload:      "ibench",
		Host:          results.Host{Hostname: "h1", CPUModel: "Xeon", Cores: 4, MemoryBytes: 16 << 30, Device: "nvme0n1"},
		Engine:        model.Info{Name: "pebble", Version: "v2.1.7", Settings: settings},
		Ops:           measure.Ops{{Name: "insert", Unit: measure.UnitRows, Role: measure.RoleWrite}},
		Sizes:         map[string]any{"rows": 1000},
		Steps:         []string{"l.i0"},
		StartedAt:     start,
		FinishedAt:    &fin,
		Complete:      true,
		Config:        map[string]any{"workload": "ibench", "data_dir": dir},
	}
	if err := w.WriteRun(run); err != nil {
		t.Fatal(err)
	}
	pct := rate * 0.9
	step := &results.Step{
		Step: "l.i0", StepDesc: results.StepDesc{MainOp: "insert", Work: 1000}, Complete: true,
		RatePercentile: 99, Started: start, Seconds: 1000 / rate, Interval: 1,
		Ops: map[string]*results.OpSummary{"insert": {Unit: measure.UnitRows, Role: measure.RoleWrite,
			Count: 10, Rows: 1000, RateAvg: &rate, RatePct: &pct}},
		Latency:    map[string]measure.Latency{"insert": {Count: 10, P99: 300, Max: 900}},
		EngineSize: -1,
	}
	if err := w.WriteStep(step); err != nil {
		t.Fatal(err)
	}
}

// series12 records 12 runs of one label: the first six with sync false,
// the last six with sync true; rates are level1 then level2 with ±3%
// noise.
func series12(t *testing.T, s *Store, level1, level2 float64) {
	root := t.TempDir()
	r := rand.New(rand.NewPCG(11, 12))
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 12; i++ {
		sync, level := "false", level1
		if i >= 6 {
			sync, level = "true", level2
		}
		rate := level * (1 + 0.03*(2*r.Float64()-1))
		writeBundle(t, filepath.Join(root, fmt.Sprintf("run%02d", i+1), "pebble"), t0.Add(time.Duration(i)*time.Hour),
			map[string]string{"sync": sync, "cache_size": "64MB"}, rate)
	}
	if _, err := s.AddDirs(context.Background(), []string{root}, ""); err != nil {
		t.Fatal(err)
	}
}

// Twelve runs, six with sync false and six with sync true that cut the
// rate by a third: one regression at run 7 naming the setting, failing
// the gate; the costs without a change are not flagged.
func TestCheckFindsSettingChange(t *testing.T) {
	forEachStore(t, func(t *testing.T, target string) {
		s := openStore(t, target)
		series12(t, s, 3000, 2000)
		ss, err := s.Series(context.Background(), Filter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(ss) != 1 || len(ss[0].Points) != 12 {
			t.Fatalf("want one series of 12 points, got %d series", len(ss))
		}
		fs := Check(ss, []string{"rate_avg", "p99_ms"}, DefaultDetect)
		if len(fs) != 1 {
			t.Fatalf("want one finding, got %d: %+v", len(fs), fs)
		}
		f := fs[0]
		if f.Position != 7 || f.Figure != "rate_avg" || !f.Regressed || !f.Gate() {
			t.Fatalf("finding: position %d figure %s regressed %v gate %v", f.Position, f.Figure, f.Regressed, f.Gate())
		}
		want := "engine setting sync: false → true"
		if len(f.Differs) != 1 || f.Differs[0] != want {
			t.Fatalf("differs %q, want [%q] (data_dir left out)", f.Differs, want)
		}
	})
}

// The same change the other way is an improvement: no gate.
func TestCheckImprovementPasses(t *testing.T) {
	s := openStore(t, filepath.Join(t.TempDir(), "h.db"))
	series12(t, s, 2000, 3000)
	ss, _ := s.Series(context.Background(), Filter{})
	fs := Check(ss, nil, DefaultDetect)
	if len(fs) != 2 {
		t.Fatalf("want improvements of rate_avg and rate_pct, got %d findings", len(fs))
	}
	for _, f := range fs {
		if f.Regressed || f.Gate() || f.Position != 7 || (f.Figure != "rate_avg" && f.Figure != "rate_pct") {
			t.Fatalf("want an improvement at run 7, got %s at %d regressed %v", f.Figure, f.Position, f.Regressed)
		}
	}
}

// Twelve runs of one setting find nothing.
func TestCheckIdenticalRunsFlagNothing(t *testing.T) {
	s := openStore(t, filepath.Join(t.TempDir(), "h.db"))
	series12(t, s, 3000, 3000)
	ss, _ := s.Series(context.Background(), Filter{})
	if fs := Check(ss, nil, DefaultDetect); len(fs) != 0 {
		t.Fatalf("identical runs flagged: %+v", fs[0])
	}
}

// A cost that rises is a regression, one that falls an improvement.
func TestDirections(t *testing.T) {
	for fig, higher := range map[string]bool{"rate_avg": true, "qps_99": true, "cpu_us_per_op": false, "p99_ms": false, "wkb_per_op": false, "flushes_per_op": false, "cpu_sys_us_per_op": false, "space_amp": false} {
		if HigherIsBetter(fig) != higher {
			t.Errorf("%s: higher is better %v, want %v", fig, !higher, higher)
		}
	}
	if !notChecked("rows_per_query") || notChecked("rate_avg") {
		t.Error("rows_per_query describes the work (checked: no), rate_avg how well it went (checked: yes)")
	}
	if d := Differs(&Run{Config: `{"a":{"b":1}}`, EngineVersion: "1"}, &Run{Config: `{"a":{"b":2}}`, EngineVersion: "2"}); strings.Join(d, ";") != "engine version: 1 → 2;config a.b: 1 → 2" {
		t.Fatalf("differs %q", d)
	}
}

// Calibration on an A/A series (one setting, ±3% noise) counts no false
// alarm at the default settings and some at none; a series whose runs
// differ in a setting is not A/A and is left out.
func TestCalibrate(t *testing.T) {
	s := openStore(t, filepath.Join(t.TempDir(), "h.db"))
	root := t.TempDir()
	r := rand.New(rand.NewPCG(21, 22))
	t0 := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 24; i++ {
		writeBundle(t, filepath.Join(root, fmt.Sprintf("aa%02d", i), "pebble"), t0.Add(time.Duration(i)*time.Hour),
			map[string]string{"sync": "true"}, 3000*(1+0.03*(2*r.Float64()-1)))
	}
	if _, err := s.AddDirs(context.Background(), []string{root}, "aa"); err != nil {
		t.Fatal(err)
	}
	series12(t, s, 3000, 3000) // label pebble: sync differs
	ss, err := s.Series(context.Background(), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	c := Calibrate(ss, []string{"rate_avg"}, DefaultDetect, 20)
	if len(c.Series) != 1 || c.Series[0].Key.Label != "aa" || len(c.Skipped) != 1 || !strings.Contains(c.Skipped[0], "sync") {
		t.Fatalf("A/A series %d, skipped %q", len(c.Series), c.Skipped)
	}
	var chosen, none *CalibrationRow
	for i := range c.Rows {
		switch c.Rows[i].MinEffect {
		case DefaultDetect.MinEffect:
			chosen = &c.Rows[i]
		case 0:
			none = &c.Rows[i]
		}
	}
	if chosen == nil || none == nil {
		t.Fatalf("rows %+v lack the chosen and the 0 minimum effect", c.Rows)
	}
	if chosen.Points != 24 || chosen.ShuffledPoints != 24*20 {
		t.Fatalf("judged %d points, %d shuffled; want 24 and 480", chosen.Points, chosen.ShuffledPoints)
	}
	if chosen.Flagged != 0 || chosen.ShuffledFlagged != 0 {
		t.Fatalf("±3%% noise flagged at a 5%% minimum effect: %+v", chosen)
	}
	if none.ShuffledFlagged < chosen.ShuffledFlagged {
		t.Fatalf("no minimum effect flagged less than 5%%: %+v vs %+v", none, chosen)
	}
}
