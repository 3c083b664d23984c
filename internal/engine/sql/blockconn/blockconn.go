// Package blockconn lets a worker's connection wait for the server's reply
// blocked in the kernel, as a C client's does, instead of parking the
// goroutine in Go's netpoller. A query worker owns its connection and waits
// for every reply: parking costs it a trip through the scheduler (the
// thread looks for other work, sleeps in epoll or a futex, another is woken)
// per round trip, blocking costs one sleep and wake-up in recv (issue 39
// measured the difference; README, The client's floor).
//
// The socket is switched between the two (O_NONBLOCK) by the session:
// blocking for queries, the netpoller for writes. A write's reply waits
// for a commit, often long; and a thread blocked in a system call keeps its
// P (Go's right to run Go code), so when the write steps' inserter and
// deleter are both blocked every P is held, Go's sysmon takes one away
// within 20 µs and goes back to polling every 20 µs, which costs more than
// blocking saves. For the same reason GOMAXPROCS is kept above the number
// of blocking connections (raised when needed, restored when they are
// gone).
//
// While blocking, deadlines are only kept as far as the drivers and the
// workers' context watch use them: a deadline in the past shuts the socket
// down, which interrupts a blocked read or write (the connection is then
// dead, as pgconn and go-sql-driver/mysql treat one whose deadline fired).
package blockconn

import (
	"fmt"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Conn is a TCP or Unix connection that can wait blocked in the kernel.
type Conn struct {
	net.Conn
	raw      syscall.RawConn
	blocking atomic.Bool
	mu       sync.Mutex // serialises mode changes and Close
	closed   bool
}

// Wrap returns nc as a *Conn when it is a TCP or Unix socket, else nc
// itself (TLS is layered above the dialled connection, so never here). The
// connection starts in Go's netpoller mode.
func Wrap(nc net.Conn) (net.Conn, error) {
	switch nc.(type) {
	case *net.TCPConn, *net.UnixConn:
	default:
		return nc, nil
	}
	raw, err := nc.(syscall.Conn).SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("blocking connection: %w", err)
	}
	return &Conn{Conn: nc, raw: raw}, nil
}

// SetBlocking switches how reads and writes wait: blocked in the kernel
// (true) or parked in the netpoller. Only a change costs a system call.
func SetBlocking(nc net.Conn, on bool) error {
	c, ok := nc.(*Conn)
	if !ok || c.blocking.Load() == on {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.blocking.Load() == on {
		return nil
	}
	var serr error
	if err := c.raw.Control(func(fd uintptr) { serr = setNonblock(int(fd), !on) }); err != nil {
		return fmt.Errorf("blocking connection: %w", err)
	}
	if serr != nil {
		return fmt.Errorf("blocking connection: set O_NONBLOCK: %w", serr)
	}
	c.blocking.Store(on)
	if on {
		hold()
	} else {
		release()
	}
	return nil
}

// SetDeadline sets the connection's deadline; while blocking, one that
// has passed shuts the socket down at once.
func (c *Conn) SetDeadline(t time.Time) error {
	err := c.Conn.SetDeadline(t)
	c.interruptIfPast(t)
	return err
}

// SetReadDeadline is SetDeadline's read half (the same shutdown).
func (c *Conn) SetReadDeadline(t time.Time) error {
	err := c.Conn.SetReadDeadline(t)
	c.interruptIfPast(t)
	return err
}

func (c *Conn) interruptIfPast(t time.Time) {
	if c.blocking.Load() && !t.IsZero() && !time.Now().Before(t) {
		c.shutdown()
	}
}

func (c *Conn) shutdown() {
	//nolint:errcheck // a socket already shut down or closed is interrupted
	c.raw.Control(func(fd uintptr) { shutdownFD(int(fd)) })
}

// Close wakes a blocked read or write (Go's Close would wait for it) and
// closes the connection.
func (c *Conn) Close() error {
	c.mu.Lock()
	if !c.closed {
		c.closed = true
		if c.blocking.Load() {
			c.shutdown()
			release()
		}
	}
	c.mu.Unlock()
	return c.Conn.Close()
}

// procs keeps GOMAXPROCS above the number of connections in blocking mode.
var procs struct {
	sync.Mutex
	open int
	base int // GOMAXPROCS before the first one
}

func hold() {
	procs.Lock()
	defer procs.Unlock()
	if procs.open == 0 {
		procs.base = runtime.GOMAXPROCS(0)
	}
	procs.open++
	if want := procs.open + 1; want > runtime.GOMAXPROCS(0) {
		runtime.GOMAXPROCS(want)
	}
}

func release() {
	procs.Lock()
	defer procs.Unlock()
	procs.open--
	if procs.open == 0 && runtime.GOMAXPROCS(0) != procs.base {
		runtime.GOMAXPROCS(procs.base)
	}
}

// OptionKey is the server engines' option choosing how query workers'
// sockets wait: "blocking" (the default) or "netpoller" (Go's own).
const OptionKey = "client_io"

// OptionHelp describes OptionKey for `rumbench engines -v`.
const OptionHelp = "how a connection waits for a query's reply: blocking (in recv, as a C client does; writes still wait in Go's netpoller) or netpoller (the goroutine parks in Go's netpoller for every statement)"

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

// Blocking reports whether nc is a *Conn in blocking mode.
func Blocking(nc net.Conn) bool {
	c, ok := nc.(*Conn)
	return ok && c.blocking.Load()
}
