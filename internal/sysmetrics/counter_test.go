package sysmetrics

import (
	"errors"
	"math"
	"testing"
)

func TestCounterDelta(t *testing.T) {
	cases := []struct {
		name      string
		prev, cur uint64
		bits      uint
		want      uint64
		ok        bool
	}{
		{"increase", 100, 250, 64, 150, true},
		{"unchanged", 7, 7, 32, 0, true},
		{"32-bit wrap", math.MaxUint32 - 9, 5, 32, 15, true},
		{"64-bit wrap", math.MaxUint64 - 1, 3, 64, 5, true},
		// Falling from small values is a reset, not a wrap of 2^64.
		{"64-bit reset", 1000, 10, 64, 0, false},
		// A 32-bit "wrap" longer than half the range is a reset too.
		{"32-bit reset", 1 << 20, 10, 32, 0, false},
		{"too wide for 32", 1 << 40, 10, 32, 0, false},
	}
	for _, c := range cases {
		d, ok := counterDelta(c.prev, c.cur, c.bits)
		if d != c.want || ok != c.ok {
			t.Errorf("%s: counterDelta(%d, %d, %d) = %d, %v; want %d, %v", c.name, c.prev, c.cur, c.bits, d, ok, c.want, c.ok)
		}
	}
}

// step feeds a series to a setCounter and returns the deltas, -1 for none.
func series(c *setCounter, samples []map[key]uint64) []int64 {
	var out []int64
	for _, s := range samples {
		d, ok := c.observe(s, nil)
		if !ok {
			out = append(out, -1)
			continue
		}
		out = append(out, int64(d))
	}
	return out
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestSetCounterMissingSample(t *testing.T) {
	c := &setCounter{width: 64}
	// baseline, +100, missing, +300 spanning the gap, +50.
	got := series(c, []map[key]uint64{one(1000), one(1100), nil, one(1400), one(1450)})
	want := []int64{-1, 100, -1, 300, 50}
	if !equal(got, want) {
		t.Fatalf("deltas %v, want %v", got, want)
	}
}

func TestSetCounterWrap32(t *testing.T) {
	c := &setCounter{width: 32}
	got := series(c, []map[key]uint64{one(math.MaxUint32 - 99), one(math.MaxUint32), one(49), nil, one(149)})
	want := []int64{-1, 99, 50, -1, 100}
	if !equal(got, want) {
		t.Fatalf("deltas %v, want %v", got, want)
	}
}

func TestSetCounterMembers(t *testing.T) {
	a, b, b2 := key{pid: 10, start: 1}, key{pid: 11, start: 5}, key{pid: 11, start: 9}
	c := &setCounter{width: 64}
	if _, ok := c.observe(map[key]uint64{a: 100}, nil); ok {
		t.Fatal("baseline gave a delta")
	}
	// b is born: all of its count is new.
	if d, _ := c.observe(map[key]uint64{a: 150, b: 30}, nil); d != 50+30 {
		t.Fatalf("born member: delta %d, want 80", d)
	}
	// b alive but unreadable: it keeps its last value and nothing is lost.
	alive := map[key]bool{a: true, b: true}
	if d, _ := c.observe(map[key]uint64{a: 160}, alive); d != 10 {
		t.Fatalf("unreadable member: delta %d, want 10", d)
	}
	if d, _ := c.observe(map[key]uint64{a: 170, b: 70}, nil); d != 10+40 {
		t.Fatalf("readable again: delta %d, want 50", d)
	}
	// b exits and its pid is reused (new start time): the new process
	// counts from zero, and the old one's gone without a negative delta.
	if d, _ := c.observe(map[key]uint64{a: 170, b2: 5}, nil); d != 5 {
		t.Fatalf("pid reuse: delta %d, want 5", d)
	}
	// A thread id reused under the same key shows a counter that went
	// down: a new incarnation, counted in full.
	if d, _ := c.observe(map[key]uint64{a: 3, b2: 6}, nil); d != 3+1 {
		t.Fatalf("reset: delta %d, want 4", d)
	}
}

func TestTrackerUnavailableFieldIsNotZero(t *testing.T) {
	tr := newTracker()
	r := &reading{}
	r.vals[fCPU] = one(10_000)
	r.errs[fDevReads] = errors.New("no device")
	tr.observe(r)
	r2 := &reading{}
	r2.vals[fCPU] = one(30_000)
	d := tr.observe(r2)
	if !d.OK[fCPU] || d.V[fCPU] != 20_000 {
		t.Fatalf("cpu delta %d ok %v, want 20000 true", d.V[fCPU], d.OK[fCPU])
	}
	if d.OK[fDevReads] {
		t.Fatal("an unreadable device counter reported a delta")
	}
}
