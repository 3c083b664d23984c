package runner

import (
	"math"
	"testing"

	"rumbench/internal/measure"
	"rumbench/internal/steady"
)

// The series the steady-state rule judges, from the figures the interval
// hook sees: each value is used once, one interval behind, and an
// interval without its denominator is carried into the next value.
func TestSteadySeries(t *testing.T) {
	ops := measure.Ops{{Name: "insert", Unit: measure.UnitRows, Role: measure.RoleWrite}}
	iv := func(rows int64) *measure.Interval {
		v := &measure.Interval{Seconds: 1, Spec: ops, Ops: make([]*measure.OpInterval, 1)}
		if rows > 0 {
			v.Ops[0] = &measure.OpInterval{Ops: 1, Rows: rows}
		}
		return v
	}
	var inserted int64 = 1000 // before the step
	s := newSteadySeries(steady.WriteAmp, 0, func() int64 { return inserted })
	if v := s.value(iv(10)); !math.IsNaN(v) {
		t.Fatalf("first interval: %v, want no value yet", v)
	}
	inserted += 100
	s.observe(iv(10), map[string]any{"proc_write_bytes": uint64(500)})
	if v := s.value(iv(10)); v != 5 {
		t.Fatalf("wamp %v, want 500/100", v)
	}
	if v := s.value(iv(10)); !math.IsNaN(v) {
		t.Fatalf("a value used twice: %v", v)
	}
	// Nothing inserted: the 300 bytes wait for the next insert.
	s.observe(iv(0), map[string]any{"proc_write_bytes": uint64(300)})
	if v := s.value(iv(0)); !math.IsNaN(v) {
		t.Fatalf("no insert: %v, want no value", v)
	}
	inserted += 100
	s.observe(iv(10), map[string]any{"proc_write_bytes": uint64(100)})
	if v := s.value(iv(10)); v != 4 {
		t.Fatalf("carried wamp %v, want (300+100)/100", v)
	}
	// wkb: KB per row of the main operation.
	s = newSteadySeries(steady.WKBPerOp, 0, nil)
	s.observe(iv(4), map[string]any{"proc_write_bytes": uint64(8192)})
	if v := s.value(iv(4)); v != 2 {
		t.Fatalf("wkb %v, want 8 KB / 4 rows", v)
	}
	if s.source != "process" {
		t.Errorf("source %q with only process bytes, want process", s.source)
	}
	// The device's bytes, when read, win over the processes' (which count
	// pages dirtied: issue 44 row 4).
	s = newSteadySeries(steady.WKBPerOp, 0, nil)
	s.observe(iv(4), map[string]any{"proc_write_bytes": uint64(1 << 20), "dev_write_sectors": uint64(32)})
	if v := s.value(iv(4)); v != 4 || s.source != "device" {
		t.Fatalf("wkb %v from %q, want 16 KB / 4 rows from the device", v, s.source)
	}
	// size: the level at the interval's end; none without the sampler.
	s = newSteadySeries(steady.SizeGrowth, 0, nil)
	s.observe(iv(1), map[string]any{SysDiskBytes: int64(1 << 20)})
	if v := s.value(iv(1)); v != 1<<20 {
		t.Fatalf("size %v", v)
	}
	s.observe(iv(1), nil)
	if v := s.value(iv(1)); !math.IsNaN(v) {
		t.Fatalf("size without the sampler: %v, want no value", v)
	}
	// rate: the clock's own interval.
	s = newSteadySeries(steady.Rate, 0, nil)
	if v := s.value(iv(7)); v != 7 {
		t.Fatalf("rate %v", v)
	}
}
