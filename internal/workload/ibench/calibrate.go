package ibench

import (
	"context"
	"fmt"
	"time"

	"rumbench/internal/measure"
	"rumbench/internal/model"
	"rumbench/internal/workload"
)

var _ workload.Calibrator = (*Bench)(nil)

// ClientPath implements workload.Calibrator: the per-unit work of the
// step's workers, on a copy of client 0's table state so the run's own
// state is untouched. Write steps: generate a batch, insert it, record it
// (churn steps also delete a batch and record that); query steps: draw
// and run a query, record it (their paced writers add about one insert
// batch per 50 queries and are left out).
func (b *Bench) ClientPath(step string) (func(ctx context.Context, db model.DB, rec *measure.Recorder, units int64) (int64, error), bool) {
	src := b.tables[0]
	t := &tableState{schema: src.schema, clients: 1}
	rowGen := NewRowGen(b.cfg.Seed, 0, b.cfg.PadMin, b.cfg.PadMax, b.cfg.PadRandomPct)
	t.minPK.Store(1)
	t.nextPK.Store(1)
	switch step {
	case StepLoad, StepLoadIndexed, StepChurnBig, StepChurnSmall:
		bs := b.batchSize(loadBatch)
		switch step {
		case StepChurnBig:
			bs = b.batchSize(churnBigBatch)
		case StepChurnSmall:
			bs = b.batchSize(churnSmallBatch)
		}
		churn := (step == StepChurnBig || step == StepChurnSmall) && !b.cfg.NoDeletes
		return func(ctx context.Context, db model.DB, rec *measure.Recorder, units int64) (int64, error) {
			conn, err := calibrationConn(ctx, db, t.schema)
			if err != nil {
				return 0, err
			}
			defer conn.Close()
			batch := NewBatch(bs, b.cfg.PadMax)
			from := make(model.Row, 1)
			var done int64
			for done < units {
				rows := rowGen.Fill(batch, t.nextPK.Load(), bs, time.Now().Unix())
				start := time.Now()
				err := conn.Insert(ctx, t.schema, rows)
				rec.Record(opInsert, bs, time.Since(start), err != nil)
				if err != nil {
					return done, fmt.Errorf("insert: %w", err)
				}
				t.nextPK.Add(int64(bs))
				done += int64(bs)
				if churn {
					start = time.Now()
					from[0].Int = t.minPK.Load()
					got, err := conn.DeleteOldest(ctx, t.schema, from, bs)
					rec.Record(opDelete, got, time.Since(start), err != nil)
					if err != nil {
						return done, fmt.Errorf("delete: %w", err)
					}
					t.minPK.Add(int64(bs))
				}
			}
			return done, nil
		}, true
	}
	q, ok := querySteps[step]
	if !ok {
		return nil, false
	}
	t.nextPK.Store(max(b.cfg.Rows, 1) + 1)
	return func(ctx context.Context, db model.DB, rec *measure.Recorder, units int64) (int64, error) {
		conn, err := calibrationConn(ctx, db, t.schema)
		if err != nil {
			return 0, err
		}
		defer conn.Close()
		qr := newQuerier(t, conn, uint64(b.cfg.Seed), 0, uint64(q.rate)<<1|uint64(q.kind))
		run := qr.rangeQuery
		if q.kind == pointQuery {
			run = qr.pointQuery
		}
		var done int64
		for ; done < units; done++ {
			sent := time.Now()
			n, err := run(ctx)
			rec.Record(opQuery, n, time.Since(sent), err != nil)
			if err != nil {
				return done, err
			}
		}
		return done, nil
	}, true
}

// calibrationConn creates t on db and opens a connection.
func calibrationConn(ctx context.Context, db model.DB, t *model.Table) (model.Conn, error) {
	if err := db.CreateTable(ctx, t); err != nil {
		return nil, fmt.Errorf("create table %s: %w", t.Name, err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	return conn, nil
}
