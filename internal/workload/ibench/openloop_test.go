package ibench

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"rumbench/internal/model"
	"rumbench/internal/results"
	"rumbench/internal/units"
)

// stallDB is a test double for one stall only: the first query (a Get or a
// secondary-index Scan) of the step sleeps 200 ms before reaching the real
// engine; everything else goes straight through.
type stallDB struct {
	model.DB
	stalled atomic.Bool
}

const stall = 200 * time.Millisecond

func (d *stallDB) Conn(ctx context.Context) (model.Conn, error) {
	c, err := d.DB.Conn(ctx)
	if err != nil {
		return nil, err
	}
	return &stallConn{Conn: c, d: d}, nil
}

type stallConn struct {
	model.Conn
	d *stallDB
}

func (c *stallConn) once() {
	if c.d.stalled.CompareAndSwap(false, true) {
		time.Sleep(stall)
	}
}

func (c *stallConn) Get(ctx context.Context, t *model.Table, keys []model.Row, fn func(model.Row)) (int, error) {
	c.once()
	return c.Conn.Get(ctx, t, keys, fn)
}

func (c *stallConn) Scan(ctx context.Context, t *model.Table, spec model.ScanSpec, fn func(model.Row) bool) (int, error) {
	if spec.Index >= 0 {
		c.once()
	}
	return c.Conn.Scan(ctx, t, spec, fn)
}

// TestPacedQueriesMeasureFromIntendedStart: with --query-rate, one 200 ms
// stall of the engine shows in the queries' response time (from their
// intended start) for every query queued behind it, while their service
// time shows it once; the queries keep their rate but for the slots the
// backlog rule skipped.
func TestPacedQueriesMeasureFromIntendedStart(t *testing.T) {
	for _, arrivals := range []string{"fixed", "poisson"} {
		t.Run(arrivals, func(t *testing.T) {
			b := newTestBench(t, 1, 2)
			b.cfg.QueryRate, b.cfg.Arrivals = 200, arrivals
			eng := openEngine(t, "pebble")
			if err := b.Prepare(context.Background(), eng); err != nil {
				t.Fatal(err)
			}
			runStep(t, eng, b, StepLoad)
			runStep(t, eng, b, StepIndex)
			s := runStep(t, &stallDB{DB: eng}, b, StepQP100)
			q, resp := s.Ops[OpQuery], s.Ops[OpQueryResponse]
			if q == nil || resp == nil {
				t.Fatalf("ops %v: want query and query_response", keys(s))
			}
			want := 2.0 * 200 * 2 // 2 clients × 200/s × 2 s
			sl, rl := s.Latency[OpQuery], s.Latency[OpQueryResponse]
			t.Logf("%s: %d queries (want ~%g), missed %v; service p99 %d max %d µs; response p99 %d max %d µs", arrivals, q.Done(), want,
				s.Details["query_missed"], sl.P99, sl.Max, rl.P99, rl.Max)
			// The schedule holds ~800 slots; each was either run or
			// skipped by the backlog rule (a loaded host skips more, it
			// does not lose slots), but for one in flight per client.
			slots, _ := s.Details["query_target_count"].(int64)
			missed, _ := s.Details["query_missed"].(int64)
			if float64(slots) < want*0.85 || float64(slots) > want*1.1 {
				t.Errorf("%d query slots in 2 s at 2×200/s, want ~%g", slots, want)
			}
			if d := slots - q.Done() - missed; d < 0 || d > 2 {
				t.Errorf("%d slots = %d queries + %d skipped + %d: want at most one unfinished per client", slots, q.Done(), missed, d)
			}
			// The stalled query itself took 200 ms; the ~40 queued behind
			// it on its client waited up to as long: more than 1% of the
			// responses (p99 ≥ 50 ms), where a closed loop shows one.
			if sl.Max < stall.Microseconds() || rl.Max < stall.Microseconds() {
				t.Errorf("service max %d, response max %d µs: want both ≥ the 200 ms stall", sl.Max, rl.Max)
			}
			if rl.P99 < 50_000 {
				t.Errorf("response p99 %d µs: the queries queued behind the stall did not count from their intended start", rl.P99)
			}
			if resp.Count < q.Count {
				t.Errorf("query_response %d < query %d", resp.Count, q.Count)
			}
			if s.Details["query_rate_target"] != 400.0 || s.Details["query_target_count"] == nil {
				t.Errorf("details %v: want query_rate_target 400 and query_target_count", s.Details)
			}
			// Two paced operations, two targets: the writers' (2 × 100
			// rows/s) and the queries' (2 × 200/s), each judged on its
			// own average rate.
			if len(s.Targets) != 2 || s.Targets[0].Op != OpInsert || s.Targets[0].Rate != 200 || s.Targets[0].Achieved != s.IPSAvg {
				t.Fatalf("targets %+v, want the writers' then the queries'", s.Targets)
			}
			qt := s.Targets[1]
			if qt.Op != OpQuery || qt.Who != "queries" || qt.Rate != 400 || qt.Achieved != *q.RateAvg || qt.Met != (*q.RateAvg >= 380) ||
				*qt.PctOf != units.RoundHalfUp(*q.RateAvg/400*1000, 0)/10 {
				t.Errorf("query target %+v (pct %v), want 400/s judged on %v", qt, *qt.PctOf, *q.RateAvg)
			}
		})
	}
}

func keys(s *results.Step) string {
	var out []string
	for k := range s.Ops {
		out = append(out, k)
	}
	return strings.Join(out, ",")
}

// TestQueryRateValidation: a negative rate, a rate with no query step and a
// bad --arrivals are refused with one line naming the fix.
func TestQueryRateValidation(t *testing.T) {
	base := Config{Clients: 1, Rows: 10, Indexes: 1, PadMin: 10, PadMax: 20, Seed: 1, QuerySeconds: 1}
	for _, c := range []struct {
		mod  func(*Config)
		want string
	}{
		{func(c *Config) { c.QueryRate, c.Steps = -1, []string{StepQR100} }, "--query-rate must be 0"},
		{func(c *Config) { c.QueryRate, c.Steps = 10, []string{StepLoad, StepIndex} }, "--query-rate paces the query steps, and --steps has none"},
		{func(c *Config) { c.Arrivals, c.Steps = "uniform", []string{StepQR100} }, "bad --arrivals \"uniform\""},
	} {
		cfg := base
		c.mod(&cfg)
		if _, err := New(cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an error with %q", err, c.want)
		}
	}
}
