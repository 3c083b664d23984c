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
