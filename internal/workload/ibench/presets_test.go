package ibench

import "testing"

// The iobound rule: cache = rows × clients × 70 B / 5, write buffers half
// the cache but at least 8 MB, limit = cache (+ 4 write buffers) + 24 MB.
func TestIOBoundMemory(t *testing.T) {
	m := IOBoundMemory(400_000, 1)
	if m.CacheBytes != 5_600_000 || m.WriteBufferBytes != 8<<20 || m.ProcessBytes != 24<<20 {
		t.Errorf("400k rows: %+v", m)
	}
	if got := m.LimitFor(false); got != 5_600_000+24<<20 {
		t.Errorf("limit without write buffers %d", got)
	}
	if got := m.LimitFor(true); got != 5_600_000+32<<20+24<<20 {
		t.Errorf("limit with write buffers %d", got)
	}
	m = IOBoundMemory(4_000_000, 2) // 112 MB cache, 56 MB buffers
	if m.CacheBytes != 112_000_000 || m.WriteBufferBytes != 56_000_000 {
		t.Errorf("4M rows × 2 clients: %+v", m)
	}
	// Sub-second intervals would show the query steps' paced writers as
	// stalled between their batches (docs/design.md, The quick preset).
	if p, _ := LookupPreset("quick"); p.Interval != 0 || p.Rows*int64(p.Clients) < 500_000 {
		t.Errorf("quick preset %+v: want the default 1 s interval and at least 500k rows", p)
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
