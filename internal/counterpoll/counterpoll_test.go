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

// TestStops: a failed read, or one slower than a tenth of the interval,
// stops the reads for the step, saying why; the next step starts again.
func TestStops(t *testing.T) {
	f := &fakeEngine{kind: model.Embedded, counters: []map[string]float64{{"log_kb": 1}, {"log_kb": 2}, {"log_kb": 3}, {"log_kb": 4}}}
	p := New(f, 100*time.Millisecond)
	p.Start(context.Background())
	f.err = errors.New("engine is closed")
	if d, _ := p.Tick(context.Background()); d != nil || !strings.Contains(p.Off(), "engine is closed") {
		t.Errorf("after a failed read: %v, off %q", d, p.Off())
	}
	f.err = nil
	if d, _ := p.Tick(context.Background()); d != nil || f.reads != 1 {
		t.Errorf("read again after reads stopped: %v, %d reads", d, f.reads)
	}
	p.Start(context.Background())
	f.delay = 20 * time.Millisecond
	d, _ := p.Tick(context.Background())
	if d["log_kb"] != 1 || !strings.Contains(p.Off(), "more than the 10ms allowed") {
		t.Errorf("a slow read: %v (its figures are kept), off %q", d, p.Off())
	}
	if d, _ := p.Tick(context.Background()); d != nil {
		t.Errorf("read again after a slow read: %v", d)
	}
}
