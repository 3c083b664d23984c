package ibench

import (
	"context"
	"sync"
	"testing"
	"time"

	"rumbench/internal/model"
	"rumbench/internal/ratesearch"
	"rumbench/internal/results"
)

// capDB is a test double of an engine with a known write capacity: its
// inserts are served one at a time, each taking rows/capacity seconds;
// everything else reaches the real engine at once.
type capDB struct {
	model.DB
	capacity float64 // rows/s
	mu       sync.Mutex
	free     time.Time
}

func (d *capDB) Conn(ctx context.Context) (model.Conn, error) {
	c, err := d.DB.Conn(ctx)
	if err != nil {
		return nil, err
	}
	return &capConn{Conn: c, d: d}, nil
}

type capConn struct {
	model.Conn
	d *capDB
}

func (c *capConn) Insert(ctx context.Context, t *model.Table, rows []model.Row) error {
	d := c.d
	d.mu.Lock()
	now := time.Now()
	if d.free.Before(now) {
		d.free = now
	}
	d.free = d.free.Add(time.Duration(float64(len(rows)) / d.capacity * float64(time.Second)))
	done := d.free
	d.mu.Unlock()
	time.Sleep(time.Until(done))
	return c.Conn.Insert(ctx, t, rows)
}

// TestMaxRateFindsCapacity: on pebble behind a double that serves 1,000
// rows/s, l.max's search ends within 5% of the highest target the rule
// passes (achieved ≥ 95%: up to 1,000/0.95), with every probe recorded.
//
// The double, not the client, must be what limits: under -race on a
// loaded host the client itself managed 1,500-2,500 rows/s, so a double of
// 4,000 rows/s had the search find the client's pace (1,625 rows/s). The
// probes are 2 s: a probe's window counts whole 50-row batches, and one
// batch late past a 1 s window at 1,000 rows/s is already 5%.
func TestMaxRateFindsCapacity(t *testing.T) {
	b := newTestBench(t, 1, 1)
	b.cfg.ProbeSeconds, b.cfg.SettleSeconds, b.cfg.SearchStart, b.cfg.MaxSeconds = 2, 0.5, 1000, 120
	eng := openEngine(t, "pebble")
	if err := b.Prepare(context.Background(), eng); err != nil {
		t.Fatal(err)
	}
	runStep(t, eng, b, StepLoad)
	runStep(t, eng, b, StepIndex)
	const capacity = 1000.0
	s := runStep(t, &capDB{DB: eng, capacity: capacity}, b, StepMax)
	res, ok := s.Details["search"].(results.Search)
	if !ok {
		t.Fatalf("details.search is %T", s.Details["search"])
	}
	for _, p := range res.Probes {
		t.Logf("probe %.0f: achieved %.0f p99 %d µs stalled %d pass %v %s", p.Target, p.Achieved, p.P99Us, p.Stalled, p.Pass, p.Why)
	}
	top := capacity / ratesearch.DefaultMinShare
	// Within 5% below on a quiet machine; a loaded one can keep the client
	// from the capacity's pace (at 4,000 rows/s: 3,375 was seen at load
	// 40), so the bound is loose below, tight above: the search never
	// reports a rate the double cannot serve.
	if got := s.Details["sustained_rate"].(float64); got < top*0.7 || got > top*1.05 {
		t.Errorf("sustained %.0f rows/s, want below and near %.0f (capacity %.0f / 0.95)", got, top, capacity)
	}
	if len(res.Probes) < 4 || !res.Done {
		t.Errorf("%d probes, done %v (%s): want a bracket within 5%%", len(res.Probes), res.Done, res.Why)
	}
}
