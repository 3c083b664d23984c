package ibench

import (
	"context"
	"fmt"
	"math"
	"time"

	"rumbench/internal/model"
	"rumbench/internal/units"
	"rumbench/internal/workload"
)

// StepScan is the optional full scan of every index of every table.
const StepScan = "scan"

// ScanResult is one index's full scan in the scan step's details.
type ScanResult struct {
	Table    string  `json:"table"`
	Index    string  `json:"index"`
	Rows     int64   `json:"rows"`
	Seconds  float64 `json:"seconds"`
	RowsPerS float64 `json:"rows_per_s"`
}

// pkIndexName names the primary key in scan results.
const pkIndexName = "PRIMARY"

// scan is the scan step: a full scan of the PK and of each secondary index of
// every table, one at a time so each index's time is its own, not shared with
// concurrent scans, then the PK once more (as the reference does: the first
// PK scan warms what the second one reads from cache). Every scan must read
// exactly the table's live rows.
func (b *Bench) scan(ctx context.Context, env *workload.Env) error {
	conn, err := env.DB.Conn(ctx)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close()
	rec := env.Clock.Recorder()
	// The null engine keeps no rows, so there is nothing to check against.
	check := env.DB.Info().Family != model.NoFamily
	if !check {
		env.Details["row_check"] = "skipped: the null engine stores no rows"
	}
	var (
		results  []ScanResult
		total    int64
		totalDur time.Duration
		n        int64
	)
	count := func(model.Row) bool { n++; return true }
	// Details are filled in even when a scan fails, to keep what was measured.
	defer func() {
		env.Details["scans"] = results
		env.Details["scan_rows"] = total
		env.Details["scan_seconds"] = units.Round(totalDur.Seconds(), 3)
		if totalDur > 0 {
			env.Details["scan_rows_per_s"] = math.Round(float64(total) / totalDur.Seconds())
		}
	}()
	tables, err := b.onceTables(ctx, env.DB)
	if err != nil {
		return err
	}
	for _, t := range tables {
		want := t.Rows()
		order := []int{-1}
		for idx := range t.schema.Indexes {
			order = append(order, idx)
		}
		order = append(order, -1)
		for pass, idx := range order {
			name := pkIndexName
			if idx >= 0 {
				name = t.schema.Indexes[idx].Name
			} else if pass > 0 {
				name = pkIndexName + " (again)"
			}
			n = 0
			start := time.Now()
			_, err := conn.Scan(ctx, t.schema, model.ScanSpec{Index: idx, Cols: model.NoCols}, count)
			d := time.Since(start)
			rec.Record(opScan, int(n), d, err != nil)
			if err != nil {
				return fmt.Errorf("scan %s.%s: %w", t.schema.Name, name, err)
			}
			r := ScanResult{Table: t.schema.Name, Index: name, Rows: n, Seconds: units.Round(d.Seconds(), 3)}
			if d > 0 {
				r.RowsPerS = math.Round(float64(n) / d.Seconds())
			}
			results = append(results, r)
			total += n
			totalDur += d
			if check && n != want {
				return fmt.Errorf("scan %s.%s read %d rows but the table has %d live rows (PKs %d..%d)", t.schema.Name, name, n, want, t.minPK.Load(), t.nextPK.Load()-1)
			}
		}
	}
	return nil
}
