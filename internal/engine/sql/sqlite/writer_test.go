package sqlite

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mattn/go-sqlite3"

	"rumbench/internal/model"
)

// TestWALBounded churns two tables, each with its own inserter and deleter
// connection, while a reader scans: the insert benchmark's churn step. The
// WAL used to grow by the full volume written (hundreds of MB here) because
// the next writer always started before the previous commit's checkpoint
// had finished, so the WAL was never restarted.
func TestWALBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("churns tens of thousands of rows")
	}
	const (
		threshold = 8 << 20
		bound     = 2 * threshold // the threshold plus what writers add while the checkpoint waits
	)
	for _, mode := range []string{ckptAuto, ckptRestart, ckptTruncate} {
		t.Run(mode, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			db := openDB(t, dir, map[string]string{
				"wal_checkpoint": mode, "wal_checkpoint_size": "8MB", "journal_size_limit": "4MB",
			})
			defer db.Close()
			walPath := filepath.Join(dir, FileName+"-wal")

			const tables, rows, churn, batch = 2, 5000, 15000, 50
			tbls := make([]*model.Table, tables)
			for i := range tbls {
				tbls[i] = ibenchTable(fmt.Sprintf("w%d", i))
				if err := db.CreateTable(ctx, tbls[i]); err != nil {
					t.Fatal(err)
				}
				if err := db.CreateIndexes(ctx, tbls[i]); err != nil {
					t.Fatal(err)
				}
				c := openConn(t, db)
				insertRange(t, c, tbls[i], 0, rows, 500)
				c.Close()
			}

			var maxWAL atomic.Int64
			sample := func() {
				if fi, err := os.Stat(walPath); err == nil && fi.Size() > maxWAL.Load() {
					maxWAL.Store(fi.Size())
				}
			}
			var wg sync.WaitGroup
			errs := make(chan error, 2*tables+1)
			stop := make(chan struct{})
			worker := func(name string, fn func(c model.Conn) error) {
				wg.Add(1)
				go func() {
					defer wg.Done()
					c, err := db.Conn(ctx)
					if err != nil {
						errs <- err
						return
					}
					defer c.Close()
					if err := fn(c); err != nil {
						errs <- fmt.Errorf("%s: %w", name, err)
					}
				}()
			}
			var writers sync.WaitGroup
			for _, tbl := range tbls {
				writers.Add(2)
				worker("insert "+tbl.Name, func(c model.Conn) error {
					defer writers.Done()
					buf := make([]model.Row, batch)
					for id := int64(rows); id < rows+churn; id += batch {
						for i := range buf {
							buf[i] = genRow(id + int64(i))
						}
						if err := c.Insert(ctx, tbl, buf); err != nil {
							return err
						}
						sample()
					}
					return nil
				})
				worker("delete "+tbl.Name, func(c model.Conn) error {
					defer writers.Done()
					for deleted := 0; deleted < churn; {
						n, err := c.DeleteOldest(ctx, tbl, nil, batch)
						if err != nil {
							return err
						}
						deleted += n
						sample()
					}
					return nil
				})
			}
			// SQLite's PASSIVE checkpoints cannot restart the WAL while
			// readers hold old frames, so auto mode is only bounded
			// without them.
			worker("scan", func(c model.Conn) error {
				if mode == ckptAuto {
					return nil
				}
				r := rand.New(rand.NewPCG(3, 4))
				for {
					select {
					case <-stop:
						return nil
					default:
					}
					tbl := tbls[r.IntN(tables)]
					spec := model.ScanSpec{Index: r.IntN(3), Lower: model.Row{{Int: r.Int64N(500)}}, Limit: 20}
					if _, err := c.Scan(ctx, tbl, spec, func(model.Row) bool { return true }); err != nil {
						return err
					}
				}
			})
			writers.Wait()
			close(stop)
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			stats, err := db.(model.StatsReporter).Stats(ctx)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("max WAL %d bytes, at end %v; checkpoints %v (busy %v)", maxWAL.Load(), stats["wal_bytes"], stats["wal_checkpoints"], stats["wal_checkpoints_busy"])
			if m := maxWAL.Load(); m > bound {
				t.Errorf("WAL reached %d bytes, want at most %d", m, bound)
			}
			if n := stats["wal_checkpoints_failed"]; n != int64(0) {
				t.Errorf("%v checkpoints failed: %v", n, stats["wal_checkpoint_last_error"])
			}
		})
	}
}

// TestWritersNeverBusy runs many writers doing every kind of write, singly
// and in transactions, with a short busy_timeout: queued in Go, none may
// fail with SQLITE_BUSY, and a Tx must not deadlock on the lock it holds.
func TestWritersNeverBusy(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db := openDB(t, t.TempDir(), map[string]string{"busy_timeout": "5000", "wal_autocheckpoint": "100"})
	defer db.Close()
	tbl := ibenchTable("busy")
	if err := db.CreateTable(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateIndexes(ctx, tbl); err != nil {
		t.Fatal(err)
	}

	const workers, each = 8, 60
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- func() error {
				c, err := db.Conn(ctx)
				if err != nil {
					return err
				}
				defer c.Close()
				rows := make([]model.Row, 10)
				for i := range each {
					for j := range rows {
						rows[j] = genRow(next.Add(1))
					}
					switch (w + i) % 4 {
					case 0:
						if err := c.Insert(ctx, tbl, rows); err != nil {
							return fmt.Errorf("insert: %w", err)
						}
					case 1:
						if _, err := c.DeleteOldest(ctx, tbl, nil, 5); err != nil {
							return fmt.Errorf("delete: %w", err)
						}
					case 2:
						ch := []model.Change{{Col: 5, Op: model.Add, Value: model.Value{Int: 1}}}
						if _, err := c.Update(ctx, tbl, model.Row{{Int: next.Load() / 2}}, ch); err != nil {
							return fmt.Errorf("update: %w", err)
						}
					case 3:
						tx, err := c.(model.Transactor).Begin(ctx)
						if err != nil {
							return fmt.Errorf("begin: %w", err)
						}
						// The Conn's own write fails at once instead of
						// waiting for the lock its Tx holds.
						if err := c.Insert(ctx, tbl, rows); err == nil {
							return errors.New("Conn.Insert with a Tx open succeeded")
						}
						if err := tx.Insert(ctx, tbl, rows); err != nil {
							return fmt.Errorf("tx insert: %w", err)
						}
						if _, err := tx.DeleteOldest(ctx, tbl, nil, 3); err != nil {
							return fmt.Errorf("tx delete: %w", err)
						}
						if _, err := tx.Get(ctx, tbl, []model.Row{{{Int: rows[0][0].Int}}}, func(model.Row) {}); err != nil {
							return fmt.Errorf("tx get: %w", err)
						}
						end := tx.Commit
						if i%8 == 3 {
							end = tx.Rollback
						}
						if err := end(ctx); err != nil {
							return fmt.Errorf("end tx: %w", err)
						}
						if err := tx.Rollback(ctx); err != nil {
							return fmt.Errorf("rollback after end: %w", err)
						}
					}
				}
				// Closing with a Tx open must release the lock for the
				// others.
				if _, err := c.(model.Transactor).Begin(ctx); err != nil {
					return fmt.Errorf("last begin: %w", err)
				}
				return nil
			}()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if errors.Is(err, sqlite3.ErrBusy) {
			t.Errorf("a writer saw SQLITE_BUSY: %v", err)
		} else if err != nil {
			t.Error(err)
		}
	}
	// Everyone is done: a write must get the lock at once.
	c := openConn(t, db)
	defer c.Close()
	if err := c.Insert(ctx, tbl, []model.Row{genRow(next.Add(1))}); err != nil {
		t.Fatal(err)
	}
}

// TestWriteLockWait checks that a writer queued behind a transaction fails
// after busy_timeout (like SQLite would) or when its context ends.
func TestWriteLockWait(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, t.TempDir(), map[string]string{"busy_timeout": "50"})
	defer db.Close()
	tbl := ibenchTable("wait")
	if err := db.CreateTable(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	a, b := openConn(t, db), openConn(t, db)
	defer a.Close()
	defer b.Close()
	tx, err := a.(model.Transactor).Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Insert(ctx, tbl, []model.Row{genRow(1)}); !errors.Is(err, sqlite3.ErrBusy) {
		t.Fatalf("insert behind a Tx: err = %v, want SQLITE_BUSY after busy_timeout", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := b.DeleteOldest(cctx, tbl, nil, 1); !errors.Is(err, context.Canceled) {
		t.Fatalf("delete with a cancelled context: err = %v", err)
	}
	// Reads never take the lock.
	if _, err := b.Get(ctx, tbl, []model.Row{{{Int: 1}}}, func(model.Row) {}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := b.Insert(ctx, tbl, []model.Row{genRow(1)}); err != nil {
		t.Fatal(err)
	}
}
