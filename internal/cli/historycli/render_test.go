package historycli

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"rumbench/internal/history"
)

// stepped is a series of 12 runs whose rate falls 15% from run 9 on, the
// engine's version changing with it.
func stepped() *history.Series {
	noise := []float64{1.01, 0.99, 1.02, 0.98, 1.0, 1.01, 0.99, 1.0, 1.02, 0.98, 1.0, 0.99}
	ser := &history.Series{Key: history.SeriesKey{Workload: "ibench", Sizes: `{"rows":1000}`, Step: "l.i0", Label: "pebble", HostClass: "Xeon/4c/16GiB"}}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, n := range noise {
		rate, ver := 1000*n, "v1"
		if i >= 8 {
			rate, ver = 850*n, "v2"
		}
		r := &history.Run{Key: fmt.Sprintf("%016d", i), StartedAt: start.Add(time.Duration(i) * time.Hour),
			ToolVersion: "0.9.0", ToolCommit: "c0ffeec0ffeec0ffee", Engine: "pebble", EngineVersion: ver}
		ser.Points = append(ser.Points, &history.Point{Run: r, Figures: map[string]float64{"rate_avg": rate, "p99_ms": 0.3}})
	}
	return ser
}

func TestCheckGatesTheNewestRegression(t *testing.T) {
	var b strings.Builder
	err := Check(&b, []*history.Series{stepped()}, []string{"rate_avg", "p99_ms"}, history.DefaultDetect)
	var reg *RegressionError
	if !errors.As(err, &reg) || reg.Series != 1 {
		t.Fatalf("Check: %v, want a regression in 1 series\n%s", err, b.String())
	}
	out := b.String()
	for _, want := range []string{
		"REGRESSION: pebble ibench [rows:1000] step l.i0 on Xeon/4c/16GiB\n",
		"  rate_avg 999.9 → 847.8 (-15.2%, corrected p=1.1e-07)", "at run 9 of 12, 2026-01-01 08:00 (rumbench 0.9.0 c0ffeec0ffee, engine pebble v2)",
		"  differs from run 8: engine version: v1 → v2\n",
		"history check: 1 series (0 with fewer than 6 runs, too few to judge), 1 changes, 1 regressions in the newest runs of 1 series (min effect 5.0%, alpha 0.01)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("check output lacks %q:\n%s", want, out)
		}
	}
}

func TestShowMarksTheChangeInTheTable(t *testing.T) {
	var b strings.Builder
	if err := Show(&b, []*history.Series{stepped()}, "h.db", []string{"rate_avg", "p99_ms", "wkb_per_op"}, history.DefaultDetect, ""); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if !strings.Contains(lines[1], "engine  rate_avg  p99_ms") || strings.Contains(lines[1], "wkb_per_op") {
		t.Errorf("header %q: want the figures recorded, no others", lines[1])
	}
	if !strings.Contains(lines[10], "v2       867     0.3  REGRESSION rate_avg -15.2%") {
		t.Errorf("run 9 %q: want its rate printed with four digits and the change marked", lines[10])
	}
	b.Reset()
	Show(&b, nil, "h.db", nil, history.DefaultDetect, "")
	if b.String() != "no recorded series match (history h.db)\n" {
		t.Errorf("no series: %q", b.String())
	}
}
