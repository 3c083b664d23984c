// Package blockconn turns a dialled TCP or Unix connection into one whose
// reads and writes block in the kernel, as a C client's do, instead of
// parking the goroutine in Go's netpoller. A benchmark worker owns its
// connection and waits for every reply: parking costs it a trip through
// the scheduler (epoll, futex wake-ups of idle threads) per round trip,
// blocking costs one sleep and wake-up in recv (issue 39 measured the
// difference; README, The client's floor).
//
// Deadlines are kept only as far as the drivers use them: a deadline in
// the past interrupts blocked reads and writes at once, a future one does
// so when it passes, by shutting the socket down; either way the
// connection is dead afterwards, which is what pgconn and
// go-sql-driver/mysql do with a connection whose deadline fired.
package blockconn

import (
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Conn is a connected socket in blocking mode. Reads and writes may run
// at the same time; Close and deadlines interrupt both.
type Conn struct {
	fd            int
	local, remote net.Addr
	network       string

	// mu: Read and Write hold it shared while in a system call, Close
	// exclusively to close the fd only when none is.
	mu     sync.RWMutex
	closed bool

	dmu   sync.Mutex // guards timer
	timer *time.Timer
	// expired is set once a deadline fired (the socket is shut down).
	expired atomic.Bool
}

var _ net.Conn = (*Conn)(nil)

func (c *Conn) LocalAddr() net.Addr  { return c.local }
func (c *Conn) RemoteAddr() net.Addr { return c.remote }

// SetDeadline interrupts every blocked and future operation at t; the zero
// time cancels a pending deadline.
func (c *Conn) SetDeadline(t time.Time) error {
	c.dmu.Lock()
	defer c.dmu.Unlock()
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	if t.IsZero() {
		return nil
	}
	if d := time.Until(t); d > 0 {
		c.timer = time.AfterFunc(d, c.expire)
		return nil
	}
	c.expire()
	return nil
}

// SetReadDeadline and SetWriteDeadline are SetDeadline: one socket
// shutdown interrupts both directions.
func (c *Conn) SetReadDeadline(t time.Time) error  { return c.SetDeadline(t) }
func (c *Conn) SetWriteDeadline(t time.Time) error { return c.SetDeadline(t) }

func (c *Conn) expire() {
	c.expired.Store(true)
	c.mu.RLock()
	defer c.mu.RUnlock()
	if !c.closed {
		shutdown(c.fd)
	}
}

func (c *Conn) opError(op string, err error) error {
	if c.expired.Load() {
		err = os.ErrDeadlineExceeded
	}
	return &net.OpError{Op: op, Net: c.network, Source: c.local, Addr: c.remote, Err: err}
}

// Close shuts the socket down, which wakes any blocked read or write, and
// closes it once they have returned.
func (c *Conn) Close() error {
	c.dmu.Lock()
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	c.dmu.Unlock()
	c.mu.RLock()
	if c.closed {
		c.mu.RUnlock()
		return nil
	}
	shutdown(c.fd)
	c.mu.RUnlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	return closeFD(c.fd)
}

// waitSlice bounds one blocking system call (see Wrap).
const waitSlice = 5 * time.Millisecond

// OptionKey is the server engines' option choosing how workers' sockets
// wait: "blocking" (Wrap, the default) or "netpoller" (Go's own).
const OptionKey = "client_io"

// OptionHelp describes OptionKey for `rumbench engines -v`.
const OptionHelp = "how each worker's connection waits for the server: blocking (a blocking socket, the thread sleeps in recv as a C client's does) or netpoller (Go's non-blocking socket; the goroutine parks in the runtime's netpoller)"

// ParseOption reads OptionKey's value: true for blocking.
func ParseOption(engine, v string) (bool, error) {
	switch v {
	case "", "blocking":
		return true, nil
	case "netpoller":
		return false, nil
	}
	return false, fmt.Errorf("%s: bad %s %q: want blocking or netpoller", engine, OptionKey, v)
}
