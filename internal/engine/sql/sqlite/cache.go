package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/mattn/go-sqlite3"
)

// cacheBudget divides one page-cache budget over every open connection of
// a database: SQLite's cache_size is per connection, and a budget per
// connection would give a run with more workers more memory. Whenever a
// connection opens or closes, every open one is set to an equal share
// (the remainder's KiB to the first ones, so the shares add up to the
// budget exactly), and each share is read back from SQLite. The library is
// built in serialized threading mode (SQLITE_THREADSAFE=1), so a pragma may
// run on a connection another goroutine is using; a shrunk cache frees its
// unpinned pages at once.
type cacheBudget struct {
	totalKiB int64

	mu    sync.Mutex
	conns []*budgetConn
	err   error // the last failure to set or read a share
}

// budgetConn is a go-sqlite3 connection counted in a budget. Embedding the
// concrete type keeps every optional driver interface it implements.
type budgetConn struct {
	*sqlite3.SQLiteConn
	b *cacheBudget
	// kib is the cache_size SQLite reported after its share was set
	// (guarded by b.mu).
	kib int64
}

// Close takes the connection out of the budget (the others grow) and
// closes it.
func (c *budgetConn) Close() error {
	c.b.remove(c)
	return c.SQLiteConn.Close()
}

// add counts a new connection in and rebalances.
func (b *cacheBudget) add(c *budgetConn) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.conns = append(b.conns, c)
	if err := b.rebalance(); err != nil {
		b.conns = b.conns[:len(b.conns)-1]
		return err
	}
	return nil
}

func (b *cacheBudget) remove(c *budgetConn) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, o := range b.conns {
		if o == c {
			b.conns = append(b.conns[:i], b.conns[i+1:]...)
			break
		}
	}
	if err := b.rebalance(); err != nil {
		b.err = err
	}
}

// rebalance sets every connection's share and reads it back. b.mu is held.
func (b *cacheBudget) rebalance() error {
	n := int64(len(b.conns))
	if n == 0 {
		return nil
	}
	for i, c := range b.conns {
		share := b.totalKiB / n
		if int64(i) < b.totalKiB%n {
			share++
		}
		// A negative cache_size is in KiB rather than pages.
		if _, err := c.SQLiteConn.ExecContext(context.Background(), fmt.Sprintf("PRAGMA cache_size = %d", -max(1, share)), nil); err != nil {
			return fmt.Errorf("sqlite: set cache_size: %w", err)
		}
		got, err := readCacheKiB(c.SQLiteConn)
		if err != nil {
			return err
		}
		c.kib = got
	}
	return nil
}

// readCacheKiB reads a connection's cache_size in KiB.
func readCacheKiB(c *sqlite3.SQLiteConn) (int64, error) {
	rows, err := c.QueryContext(context.Background(), "PRAGMA cache_size", nil)
	if err != nil {
		return 0, fmt.Errorf("sqlite: read cache_size: %w", err)
	}
	defer rows.Close()
	dest := make([]driver.Value, 1)
	if err := rows.Next(dest); err != nil {
		if errors.Is(err, io.EOF) {
			err = errors.New("no row")
		}
		return 0, fmt.Errorf("sqlite: read cache_size: %w", err)
	}
	v, ok := dest[0].(int64)
	if !ok {
		return 0, fmt.Errorf("sqlite: read cache_size: unexpected %T", dest[0])
	}
	if v >= 0 {
		return 0, fmt.Errorf("sqlite: cache_size is %d pages, not a size in KiB", v)
	}
	return -v, nil
}

// read returns the cache over all open connections in bytes, as SQLite
// reported it, and how many connections there are.
func (b *cacheBudget) read() (bytes int64, conns int, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, c := range b.conns {
		bytes += c.kib << 10
	}
	return bytes, len(b.conns), b.err
}
