// Package modeltest holds test doubles around real engines for harness
// tests: they count or observe what the workloads do, and pass every call
// through to the engine underneath.
package modeltest

import (
	"context"
	"sync/atomic"

	"rumbench/internal/model"
)

// ConnCounter wraps an engine and counts the connections opened through it
// and those still open, for tests that check when a step connects.
type ConnCounter struct {
	model.DB
	opened, open atomic.Int64
}

// Opened is how many connections were opened so far.
func (c *ConnCounter) Opened() int64 { return c.opened.Load() }

// Open is how many connections are open now.
func (c *ConnCounter) Open() int64 { return c.open.Load() }

type countedConn struct {
	model.Conn
	db     *ConnCounter
	closed atomic.Bool
}

func (c *countedConn) Close() error {
	if !c.closed.Swap(true) {
		c.db.open.Add(-1)
	}
	return c.Conn.Close()
}

// countedTxConn keeps the engine's multi-operation transactions visible.
type countedTxConn struct {
	*countedConn
	model.Transactor
}

// Conn implements model.DB.
func (c *ConnCounter) Conn(ctx context.Context) (model.Conn, error) {
	conn, err := c.DB.Conn(ctx)
	if err != nil {
		return nil, err
	}
	c.opened.Add(1)
	c.open.Add(1)
	cc := &countedConn{Conn: conn, db: c}
	if tr, ok := conn.(model.Transactor); ok {
		return &countedTxConn{countedConn: cc, Transactor: tr}, nil
	}
	return cc, nil
}
