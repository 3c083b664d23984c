package ibench

import (
	"slices"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"rumbench/internal/workload"
)

// The iobound rule: cache = rows × clients × 70 B / 5, write buffers half
// the cache but at least 8 MB, limit = cache (+ 2 write buffers) + the
// engine's own memory + 16 MB.
func TestIOBoundMemory(t *testing.T) {
	m := IOBoundMemory(400_000, 1)
	if m.CacheBytes != 5_600_000 || m.WriteBufferBytes != 8<<20 || m.RoomBytes != 16<<20 {
		t.Errorf("400k rows: %+v", m)
	}
	if got := m.LimitFor(false, 36<<20); got != 5_600_000+36<<20+16<<20 {
		t.Errorf("limit without write buffers %d", got)
	}
	if got := m.LimitFor(true, 20<<20); got != 5_600_000+16<<20+20<<20+16<<20 {
		t.Errorf("limit with write buffers %d", got)
	}
	m = IOBoundMemory(4_000_000, 2) // 112 MB cache, 56 MB buffers
	if m.CacheBytes != 112_000_000 || m.WriteBufferBytes != 56_000_000 {
		t.Errorf("4M rows × 2 clients: %+v", m)
	}
}

// The quick preset's load must span at least 5 intervals on the fastest
// engine here: pebble loaded at up to 1.7M rows/s on this machine idle
// (docs/design.md, The quick preset).
func TestQuickPresetLoadIntervals(t *testing.T) {
	const fastestRowsPerSec = 1_700_000
	p, _ := LookupPreset("quick")
	if p.Interval <= 0 {
		t.Fatalf("quick preset %+v: no interval of its own", p)
	}
	secs := float64(p.Rows*int64(p.Clients)) / fastestRowsPerSec
	if n := secs / p.Interval.Seconds(); n < 5 {
		t.Errorf("quick preset: l.i0 lasts %.1f intervals of %v at %d rows/s, want at least 5", n, p.Interval, fastestRowsPerSec)
	}
}

// MinTxnsPerInterval is how many transactions of a closed-loop write step
// an interval must hold on average for its rate percentile (IPS.99) and
// stalls to judge the engine rather than the counting: with fewer, one
// transaction more or less moves the interval's rate by over 1/8, and a
// single commit longer than the interval empties it (docs/metrics.md,
// Interval length).
const MinTxnsPerInterval = 8

// The quick preset's interval holds enough transactions of the slowest
// closed-loop write step of the default run: sqlite's l.i1, measured at
// 2,286 rows/s in 50-row transactions on this kind of machine (issue 34:
// at 100 ms, 4.6 transactions per interval, it showed IPS.99 = 0).
func TestQuickPresetIntervalHoldsTransactions(t *testing.T) {
	const sqliteChurnRowsPerSec, rowsPerTxn = 2286, 50
	p, _ := LookupPreset("quick")
	txns := float64(sqliteChurnRowsPerSec) / rowsPerTxn * p.RunInterval().Seconds()
	if txns < MinTxnsPerInterval {
		t.Errorf("quick preset: an interval of %v holds %.1f of sqlite's l.i1 transactions, want at least %d", p.RunInterval(), txns, MinTxnsPerInterval)
	}
}

// The query steps declare their writers' and deleters' batch period (all
// clients together), so the stall rule judges them over it; other steps
// and closed-loop operations declare none.
func TestQueryStepPeriods(t *testing.T) {
	for _, c := range []struct {
		clients   int
		noDeletes bool
		step      string
		want      float64
	}{{2, false, StepQR100, 0.25}, {2, false, StepQP1000, 0.025}, {1, true, StepQR500, 0.1}} {
		b, err := New(Config{Clients: c.clients, Rows: 1000, ChurnRows: 100, Indexes: 3, PadMin: 10, PadMax: 20, PadRandomPct: 50,
			QuerySeconds: 1, Seed: 1, NoDeletes: c.noDeletes, Steps: []string{StepLoad, c.step}})
		if err != nil {
			t.Fatal(err)
		}
		steps := b.Steps()
		if steps[0].OpPeriods != nil {
			t.Errorf("l.i0 declares periods %v", steps[0].OpPeriods)
		}
		p := steps[1].Desc().OpPeriodS
		if p[OpInsert] != c.want || p[OpQuery] != 0 {
			t.Errorf("%s, %d clients: periods %v, want insert %g and none for queries", c.step, c.clients, p, c.want)
		}
		if _, ok := p[OpDelete]; ok == c.noDeletes {
			t.Errorf("%s, deletes=%v: delete period declared %v", c.step, !c.noDeletes, ok)
		}
	}
}

// The quick preset leaves out the 500 rows/s query steps unless --steps
// names them; the other presets keep every query step.
func TestQuickPresetSteps(t *testing.T) {
	steps := func(preset string, args ...string) []string {
		t.Helper()
		fs := pflag.NewFlagSet("ibench", pflag.ContinueOnError)
		configure := addFlags(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		c, err := configure(workload.Common{Preset: preset, Seed: 1, Interval: time.Second, Changed: func(n string) bool { return fs.Changed(n) }})
		if err != nil {
			t.Fatal(err)
		}
		return c.Config.(Config).Steps
	}
	if got := steps("quick"); slices.Contains(got, StepQR500) || slices.Contains(got, StepQP500) || !slices.Contains(got, StepQR1000) || !slices.Contains(got, StepQR100) {
		t.Errorf("quick preset steps %v: want qr100 and qr1000 without the 500 pair", got)
	}
	if got := steps("quick", "--steps", "l.i0,qr500"); !slices.Equal(got, []string{StepLoad, StepQR500}) {
		t.Errorf("quick with --steps: %v", got)
	}
	if got := steps("small"); !slices.Contains(got, StepQR500) || !slices.Contains(got, StepQP500) {
		t.Errorf("small preset steps %v: want the 500 pair", got)
	}
}
