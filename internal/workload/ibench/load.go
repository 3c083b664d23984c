package ibench

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"rumbench/internal/measure"
	"rumbench/internal/model"
	"rumbench/internal/workload"
)

// load is l.i0: each client inserts cfg.Rows rows in PK order, no indexes.
func (b *Bench) load(ctx context.Context, env *workload.Env) error {
	bs := b.batchSize(loadBatch)
	env.Details["rows_per_commit"] = bs
	env.Details["tables"] = len(b.tables)
	b.settle()
	return b.forEachClient(ctx, func(ctx context.Context, c int) error {
		rec := env.Clock.Recorder()
		return b.insertRows(ctx, env.DB, rec, b.clients[c], b.cfg.Rows, nil, bs, nil)
	})
}

// loadIndexed is l.i0x: the secondary indexes are created on the empty
// tables (not timed as an operation: there is nothing to index), then each
// client inserts cfg.Rows rows in PK order, 100 per transaction, every
// insert maintaining every index.
func (b *Bench) loadIndexed(ctx context.Context, env *workload.Env) error {
	for _, t := range b.tables {
		if len(t.schema.Indexes) == 0 {
			continue
		}
		if err := env.DB.CreateIndexes(ctx, t.schema); err != nil {
			return fmt.Errorf("create indexes on %s before the load: %w", t.schema.Name, err)
		}
	}
	env.Details["indexes"] = b.cfg.Indexes
	return b.load(ctx, env)
}

// insertRows inserts n rows into the client's table in batches of bs, each
// batch's PKs reserved from the table's sequence, recording each
// transaction. After every commit it calls notify (if set).
func (b *Bench) insertRows(ctx context.Context, db model.DB, rec *measure.Recorder, cl *clientState, n int64, until *measure.Deadline, bs int, notify func(c model.Conn, k int64)) error {
	t := cl.t
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close()
	batch := NewBatch(bs, b.cfg.PadMax)
	for done := int64(0); done < n; {
		if err := ctx.Err(); err != nil {
			return err
		}
		if until != nil && until.Passed(time.Now()) {
			return nil
		}
		k := int64(bs)
		if n-done < k {
			k = n - done
		}
		first := t.reserve(k)
		rows := cl.gen.Fill(batch, first, int(k), time.Now().Unix())
		start := time.Now()
		err := conn.Insert(ctx, t.schema, rows)
		rec.Record(opInsert, int(k), time.Since(start), err != nil)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("insert into %s: %w", t.schema.Name, err)
		}
		t.commit(first, k)
		done += k
		if notify != nil {
			notify(conn, k)
		}
	}
	return nil
}

// createIndexes is l.x: build the first K secondary indexes on every table,
// the tables in parallel.
func (b *Bench) createIndexes(ctx context.Context, env *workload.Env) error {
	tables, err := b.onceTables(ctx, env.DB)
	if err != nil {
		return err
	}
	var rows atomic.Int64
	start := time.Now()
	err = runAll(ctx, len(tables), func(ctx context.Context, c int) error {
		rec := env.Clock.Recorder()
		t := tables[c]
		if len(t.schema.Indexes) == 0 {
			return nil
		}
		n := t.Rows()
		s := time.Now()
		err := env.DB.CreateIndexes(ctx, t.schema)
		rec.Record(opIndex, int(n), time.Since(s), err != nil)
		if err != nil {
			return fmt.Errorf("create indexes on %s: %w", t.schema.Name, err)
		}
		rows.Add(n)
		return nil
	})
	secs := time.Since(start).Seconds()
	env.Details["indexes"] = b.cfg.Indexes
	env.Details["indexed_rows"] = rows.Load()
	if secs > 0 && b.cfg.Indexes > 0 {
		env.Details["indexed_rows_per_s"] = float64(rows.Load()) / secs
		env.Details["index_entries_per_s"] = float64(rows.Load()*int64(b.cfg.Indexes)) / secs
	}
	return err
}
