package sqlite

import (
	"context"
	"errors"
	"sync"
	"testing"

	"rumbench/internal/model"
)

// TestCacheBudgetOverConnections: SQLite's page cache is the budget summed
// over every open connection, however many there are: each connection
// opened or closed rebalances the others, and the shares SQLite reports
// add up to the budget exactly.
func TestCacheBudgetOverConnections(t *testing.T) {
	ctx := context.Background()
	const budget = 96 << 20
	db := openDB(t, t.TempDir(), map[string]string{"cache_size": "96MB"})
	mr := db.(model.MemoryReporter)
	check := func(when string, minConns int) {
		t.Helper()
		m, err := mr.Memory(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if m.CacheBytes != budget {
			t.Errorf("%s: cache summed over connections %d, want %d (%s)", when, m.CacheBytes, budget, m.CacheSource)
		}
		sdb := db.(*DB)
		sdb.budget.mu.Lock()
		defer sdb.budget.mu.Unlock()
		if len(sdb.budget.conns) < minConns {
			t.Fatalf("%s: %d connections in the budget, want at least %d", when, len(sdb.budget.conns), minConns)
		}
		lo, hi := int64(1<<62), int64(0)
		for _, c := range sdb.budget.conns {
			lo, hi = min(lo, c.kib.Load()), max(hi, c.kib.Load())
		}
		if hi-lo > 1 {
			t.Errorf("%s: shares from %d to %d KiB, want equal shares", when, lo, hi)
		}
	}
	// Open leaves its first connection idle in the pool.
	check("after open", 1)
	var conns []model.Conn
	for i := range 4 {
		c := openConn(t, db)
		conns = append(conns, c)
		check("with more workers", i+1)
	}
	// Each worker's connection is in use: a read through each.
	tb := ibenchTable("cb")
	if err := db.CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	for _, c := range conns {
		if _, err := c.Get(ctx, tb, []model.Row{{{Int: 1}}}, func(model.Row) {}); err != nil {
			t.Fatal(err)
		}
	}
	conns[0].Close()
	conns[1].Close()
	// A closed worker's connection goes back to the pool, which keeps up
	// to two idle; those still hold their share.
	m, err := mr.Memory(ctx)
	if err != nil || m.CacheBytes != budget {
		t.Errorf("after two workers closed: cache %d (%v), want %d", m.CacheBytes, err, budget)
	}
}

// TestFailedInsertKeepsItsErrorWhileConnectionsOpen: a duplicate insert
// fails with model.ErrDuplicateKey even while other workers' connections
// open and close. Each open or close sets the share of every connection;
// SQLite keeps the last error per connection, so a share set on a
// connection between a failed step and the driver reading its error would
// turn a duplicate key into "not an error" (or into no error at all).
func TestFailedInsertKeepsItsErrorWhileConnectionsOpen(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, t.TempDir(), map[string]string{"cache_size": "8MB"})
	defer db.Close()
	tb := ibenchTable("dup")
	if err := db.CreateTable(ctx, tb); err != nil {
		t.Fatal(err)
	}
	seed := openConn(t, db)
	if err := seed.Insert(ctx, tb, []model.Row{genRow(1)}); err != nil {
		t.Fatal(err)
	}
	seed.Close()

	const workers, tries = 2, 2000
	stop := make(chan struct{})
	churned := make(chan int)
	go func() { // opens and closes connections until the workers are done
		n := 0
		defer func() { churned <- n }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			// More than the pool keeps idle (two), so some open anew
			// and some close for good.
			var cs []model.Conn
			for range 4 {
				c, err := db.Conn(ctx)
				if err != nil {
					t.Error(err)
					return
				}
				cs = append(cs, c)
			}
			for _, c := range cs {
				c.Close()
			}
			n++
		}
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := db.Conn(ctx)
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			for range tries {
				err := c.Insert(ctx, tb, []model.Row{genRow(1)})
				if !errors.Is(err, model.ErrDuplicateKey) {
					t.Errorf("insert of an existing key: %v, want a duplicate key error", err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	if n := <-churned; n == 0 {
		t.Fatal("no connection opened beside the inserts: the test tested nothing")
	}
}
