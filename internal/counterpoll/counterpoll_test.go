package counterpoll

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"rumbench/internal/model"
)

// fakeEngine is a test double: a model.DB whose counters are what the test
// sets, read by Internals (embedded) or IntervalInternals (server).
type fakeEngine struct {
	model.DB // nil: only Info and the counter reads are called
	kind     model.Kind
	counters []map[string]float64 // one per read, in order
	reads    int
	err      error
	delay    time.Duration
}

func (f *fakeEngine) Info() model.Info { return model.Info{Name: "fake", Kind: f.kind} }

func (f *fakeEngine) Internals(context.Context) (model.Internals, error) {
	if f.err != nil {
		return model.Internals{}, f.err
	}
	time.Sleep(f.delay)
	c := f.counters[f.reads]
	f.reads++
	return model.Internals{Common: c}, nil
}

// serverEngine has counters cheap enough per interval.
type serverEngine struct{ *fakeEngine }

func (s serverEngine) IntervalInternals(ctx context.Context) (model.Internals, error) {
	return s.Internals(ctx)
}

// TestTickDeltas: each tick gives the growth since the last read, exactly;
// a counter that went down or was not read both times is left out.
func TestTickDeltas(t *testing.T) {
	f := &fakeEngine{kind: model.Embedded, counters: []map[string]float64{
		{"log_kb": 100, "cache_miss": 5, "bg_write_kb": 0},
		{"log_kb": 150.5, "cache_miss": 7, "bg_write_kb": 64},
		{"log_kb": 151, "cache_miss": 3, "stall_s": 1},
	}}
	p := New(f, time.Second)
	if p == nil {
		t.Fatal("an embedded engine with counters got no poller")
	}
	p.Start(context.Background())
	d, span := p.Tick(context.Background())
	if len(d) != 3 || d["log_kb"] != 50.5 || d["cache_miss"] != 2 || d["bg_write_kb"] != 64 || span <= 0 {
		t.Errorf("first tick: %v over %g s", d, span)
	}
	d, _ = p.Tick(context.Background())
	if len(d) != 1 || d["log_kb"] != 0.5 {
		t.Errorf("second tick: %v, want only log_kb 0.5 (cache_miss went down, stall_s is new, bg_write_kb gone)", d)
	}
	if p.Off() != "" {
		t.Errorf("reads stopped: %s", p.Off())
	}
}

// TestNewWhich: a server engine is read per interval only with
// IntervalInternals; an engine without counters not at all.
func TestNewWhich(t *testing.T) {
	f := &fakeEngine{kind: model.Server}
	if New(f, time.Second) != nil {
		t.Error("a server engine without IntervalInternals got a poller")
	}
	if New(serverEngine{f}, time.Second) == nil {
		t.Error("a server engine with IntervalInternals got no poller")
	}
	type bare struct{ model.DB }
	if New(bare{f}, time.Second) != nil {
		t.Error("an engine without counters got a poller")
	}
}

// TestStops: a failed read leaves its interval without figures, and the
// next read covers both; three failed or slow reads in a row stop the
// reads for the step, saying why; the next step starts again.
func TestStops(t *testing.T) {
	f := &fakeEngine{kind: model.Embedded, counters: []map[string]float64{{"log_kb": 1}, {"log_kb": 2}, {"log_kb": 4}, {"log_kb": 8}, {"log_kb": 16}, {"log_kb": 32}}}
	p := New(f, 40*time.Millisecond) // 20 ms allowed per read
	ctx := context.Background()
	p.Start(ctx)
	f.err = errors.New("engine is closed")
	if d, _ := p.Tick(ctx); d != nil || p.Off() != "" {
		t.Errorf("after one failed read: %v, off %q", d, p.Off())
	}
	f.err = nil
	if d, _ := p.Tick(ctx); d["log_kb"] != 1 {
		t.Errorf("the read after a failed one: %v, want log_kb 1 (from the last good read)", d)
	}
	f.delay = 30 * time.Millisecond
	for i := 0; i < 2; i++ {
		if d, _ := p.Tick(ctx); d == nil || p.Off() != "" {
			t.Errorf("slow read %d: %v (its figures are kept), off %q", i+1, d, p.Off())
		}
	}
	f.err = errors.New("engine is closed")
	p.Tick(ctx)
	if !strings.Contains(p.Off(), "3 reads") || !strings.Contains(p.Off(), "engine is closed") {
		t.Errorf("after three bad reads in a row: off %q", p.Off())
	}
	f.err, f.delay = nil, 0
	reads := f.reads
	if d, _ := p.Tick(ctx); d != nil || f.reads != reads {
		t.Errorf("read again after reads stopped: %v", d)
	}
	p.Start(ctx)
	if d, _ := p.Tick(ctx); p.Off() != "" || d["log_kb"] != 16 {
		t.Errorf("the next step: %v, off %q", d, p.Off())
	}
}
