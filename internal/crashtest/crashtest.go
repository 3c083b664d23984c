// Package crashtest checks that inserts an engine acknowledged survive a
// hard kill of the engine (`rumbench crashtest`): clients insert rows of the
// insert benchmark's tables (secondary indexes maintained) in PK order with
// durable commits; the engine is killed with SIGKILL mid-stream; after it is
// reopened, every row whose commit had returned to its client must be there,
// and every secondary index must match the primary key.
//
// An embedded engine runs in a child process (this same binary, see Child)
// that reports each acknowledged batch to the parent over a pipe right after
// the commit returns; the child is what is killed. A server engine runs on
// a managed server that the parent's own clients write to; the server's
// main process is what is killed.
package crashtest

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"rumbench/internal/model"
	"rumbench/internal/verify"
	"rumbench/internal/workload/ibench"
)

// Options are the engine options of a crash test of d: those that make each
// commit durable before it returns, or with durable false those of the
// engine's defaults that are not (model.Durability, declared by each engine
// package). ok is false when d cannot be crash-tested that way.
func Options(d model.Driver, durable bool) (map[string]string, bool) {
	c, ok := d.(model.Durability)
	if !ok {
		return nil, false
	}
	return c.CrashOptions(durable)
}

// Engines lists the engines of ds (sorted by name) that a durable crash
// test can run on, for messages.
func Engines(ds []model.Driver) []string {
	var out []string
	for _, d := range ds {
		if _, ok := Options(d, true); ok {
			out = append(out, d.Name())
		}
	}
	return out
}

// Shape is what the clients write.
type Shape struct {
	Clients       int
	Indexes       int
	RowsPerCommit int
	Seed          int64
}

// DefaultShape is a small shape: two clients, three indexes, the load's
// 100 rows per commit.
var DefaultShape = Shape{Clients: 2, Indexes: 3, RowsPerCommit: 100, Seed: 1}

const padMin, padMax, padRandomPct = 10, 20, 50

// Tables returns the shape's table schemas (with their indexes).
func (s Shape) Tables() []*model.Table {
	var out []*model.Table
	for c := 0; c < s.Clients; c++ {
		out = append(out, ibench.Table(ibench.TableName(c), s.Indexes, padMax))
	}
	return out
}

// Create makes the shape's tables with their indexes (so every insert
// maintains them).
func (s Shape) Create(ctx context.Context, db model.DB) error {
	for _, t := range s.Tables() {
		if err := db.CreateTable(ctx, t); err != nil {
			return fmt.Errorf("create table %s: %w", t.Name, err)
		}
		if len(t.Indexes) > 0 {
			if err := db.CreateIndexes(ctx, t); err != nil {
				return fmt.Errorf("create indexes on %s: %w", t.Name, err)
			}
		}
	}
	return nil
}

// insertLoop inserts batches into client c's table in PK order from PK 1
// until ctx ends or an insert fails, calling ack(table, first, last) after
// each commit returned.
func (s Shape) insertLoop(ctx context.Context, db model.DB, c int, ack func(table string, first, last int64)) error {
	t := s.Tables()[c]
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close()
	g := ibench.NewRowGen(s.Seed, c, padMin, padMax, padRandomPct)
	b := ibench.NewBatch(s.RowsPerCommit, padMax)
	for next := int64(1); ctx.Err() == nil; next += int64(s.RowsPerCommit) {
		rows := g.Fill(b, next, s.RowsPerCommit, 0)
		if err := conn.Insert(ctx, t, rows); err != nil {
			return fmt.Errorf("insert into %s: %w", t.Name, err)
		}
		ack(t.Name, next, next+int64(s.RowsPerCommit)-1)
	}
	return nil
}

// Acks are the acknowledged PK ranges per table: inserts are in PK order
// from 1, so the acknowledged rows of a table are [1, Acks[table]].
type Acks map[string]int64

// Add records an acknowledged range; ranges of one table arrive in order.
func (a Acks) Add(table string, first, last int64) error {
	if first != a[table]+1 {
		return fmt.Errorf("table %s: acknowledged rows %d..%d do not follow %d", table, first, last, a[table])
	}
	a[table] = last
	return nil
}

// TableResult is one table's check after the crash.
type TableResult struct {
	Table        string `json:"table"`
	Acknowledged int64  `json:"acknowledged"`
	Present      int64  `json:"present"`
	Lost         int64  `json:"lost"`
	// FirstLost is the smallest acknowledged PK missing (0: none).
	FirstLost int64 `json:"first_lost,omitempty"`
	// Beyond counts rows present past the acknowledged range: commits in
	// flight at the kill, which may or may not survive.
	Beyond int64 `json:"beyond"`
}

// Result is one engine's crash test.
type Result struct {
	Engine string `json:"engine"`
	// Label is the variant's label ("" for a bare engine).
	Label string `json:"label,omitempty"`
	// Durable says whether the settings promise durable commits: only
	// then is a loss a failure.
	Durable  bool              `json:"durable"`
	Settings map[string]string `json:"settings"`
	Killed   string            `json:"killed"`
	Tables   []TableResult     `json:"tables"`
	// Acknowledged, Present, Lost sum the tables.
	Acknowledged int64          `json:"acknowledged"`
	Present      int64          `json:"present"`
	Lost         int64          `json:"lost"`
	Verify       *verify.Result `json:"verify"`
}

// OK reports whether the engine kept its promise: nothing acknowledged lost
// under durable settings, and consistent indexes.
func (r *Result) OK() bool {
	return (r.Lost == 0 || !r.Durable) && r.Verify != nil && r.Verify.OK
}

// Line is the one-line summary: acknowledged / present / lost.
func (r *Result) Line() string {
	var set []string
	for k, v := range r.Settings {
		set = append(set, k+"="+v)
	}
	sort.Strings(set)
	if len(set) == 0 {
		set = []string{"the server's defaults"}
	}
	mode := "durable"
	if !r.Durable {
		mode = "not durable"
	}
	idx := "indexes consistent"
	if r.Verify == nil || !r.Verify.OK {
		idx = "INDEXES INCONSISTENT"
	}
	verdict := "ok"
	switch {
	case r.Lost > 0 && r.Durable:
		verdict = "FAILED: acknowledged rows lost"
	case r.Lost > 0:
		verdict = "loss expected without durable commits"
	}
	if r.Verify == nil || !r.Verify.OK {
		verdict = "FAILED: indexes inconsistent"
	}
	name := r.Engine
	if r.Label != "" && r.Label != r.Engine {
		name = r.Label + " (" + r.Engine + ")"
	}
	return fmt.Sprintf("%-10s %s (%s), %s: acknowledged %d / present %d / lost %d; %s: %s",
		name, mode, strings.Join(set, " "), r.Killed, r.Acknowledged, r.Present, r.Lost, idx, verdict)
}

// Check reopened db against acks: per table the acknowledged rows present
// (by PK range), the first one lost, the rows past the range, and the
// secondary indexes against the primary key (verify).
func Check(ctx context.Context, db model.DB, s Shape, acks Acks, r *Result) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("connect after the crash: %w", err)
	}
	defer conn.Close()
	for _, t := range s.Tables() {
		tr := TableResult{Table: t.Name, Acknowledged: acks[t.Name]}
		want := int64(1)
		_, err := conn.Scan(ctx, t, model.ScanSpec{Index: -1}, func(row model.Row) bool {
			pk := row[0].Int
			if pk > tr.Acknowledged {
				tr.Beyond++
				return true
			}
			if pk >= want {
				if pk > want && tr.FirstLost == 0 {
					tr.FirstLost = want
				}
				tr.Present++
				want = pk + 1
			}
			return true
		})
		if err != nil {
			return fmt.Errorf("scan %s after the crash: %w", t.Name, err)
		}
		tr.Lost = tr.Acknowledged - tr.Present
		if tr.Lost > 0 && tr.FirstLost == 0 {
			tr.FirstLost = want
		}
		r.Tables = append(r.Tables, tr)
		r.Acknowledged += tr.Acknowledged
		r.Present += tr.Present
		r.Lost += tr.Lost
	}
	v, err := verify.Run(ctx, db)
	if err != nil {
		return fmt.Errorf("verify indexes after the crash: %w", err)
	}
	r.Verify = v
	return nil
}
