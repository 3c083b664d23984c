package mongo

import (
	"context"
	"fmt"
	"net"

	"rumbench/internal/engine/sql/blockconn"
)

// clientIOHelp describes blockconn.OptionKey for this engine, whose
// default is netpoller.
const clientIOHelp = "how the driver's connections wait for replies: netpoller (Go's own) or blocking (a pooled connection that the pool hands to operations back to back waits in recv, as a C client's does; measured costlier against FerretDB, see docs/client-floor.md)"

// blockingDialer dials the driver's connections (pooled and monitoring
// alike) as blockconn connections: one that the pool hands to operations
// back to back (blockconn.Busy: three in a row, each starting within 1 ms
// of the last reply) moves to a blocking socket and waits for replies in
// recv; one that waits between commands (the monitors' heartbeats) stays
// in Go's netpoller. The connections are the pool's, not a worker's: a
// paced writer may check out one that a busy worker made blocking.
type blockingDialer struct{ net.Dialer }

func (d *blockingDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	nc, err := d.Dialer.DialContext(ctx, network, address)
	if err != nil {
		return nil, err
	}
	bc, err := blockconn.Wrap(nc)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("mongodb: %w", err)
	}
	if bc == nc { // not TCP or Unix: nothing to block
		return nc, nil
	}
	return busyConn{bc}, nil
}

// busyConn tells blockconn before each wire message is written: the driver
// writes a command in one Write and reads its whole reply before the pool
// hands the connection to the next operation, so a Write is the start of a
// command with no read in progress, which Busy needs.
type busyConn struct{ net.Conn }

func (c busyConn) Write(p []byte) (int, error) {
	if err := blockconn.Busy(c.Conn); err != nil {
		return 0, err
	}
	return c.Conn.Write(p)
}
