// Package blockconn lets a worker's connection wait for the server's reply
// blocked in the kernel, as a C client's does, instead of parking the
// goroutine in Go's netpoller. A worker owns its connection and waits for
// every reply: parking costs it a trip through the scheduler (the thread
// looks for other work, sleeps in epoll or a futex, another is woken, and
// sysmon, asleep while every P is idle, is woken by the next system call)
// per round trip; blocking costs one sleep and wake-up in recv (issue 39
// measured the difference; docs/client-floor.md).
//
// A connection starts as Go's own. Block, called by the session through
// Busy once the connection runs statements back to back, moves it for good
// to a duplicate of the socket in blocking mode, out of Go's netpoller (a
// socket still registered there would wake an idle thread in epoll_wait on
// every reply). Its reads and writes are raw system calls: to the
// scheduler the goroutine keeps running on its P while it waits. Through
// the scheduler's own system call entry (issue 39's first version) the P
// counted as in a system call, and Go's sysmon takes such a P back when no
// other P is idle, when the call has lasted 10 ms, when a goroutine is
// queued behind it, or when its goroutine has gone 10 ms without being
// rescheduled (which one that only waits for replies never is); after
// taking one it polls every 20 µs for a millisecond, dozens of wake-ups of
// its thread each time, and the goroutine had to yield every 4 ms of
// waiting to keep it away (a pass through the scheduler and the wake-up of
// an idle thread each). A running goroutine is only preempted: after 10 ms
// on one time slice sysmon sends its thread the runtime's preemption
// signal, which ends the blocked read with EINTR, the read yields (the
// preemption it answers) and goes back to wait; sysmon takes nothing and
// stays at its slowest poll (docs/client-floor.md has the measurements).
// The same signal stops the goroutine at once for the garbage collector.
// A thread blocked in a raw system call keeps its P, so GOMAXPROCS is kept
// above the number of blocking connections (raised only when they
// outnumber the cores, restored when they close). The socket has a receive
// timeout (SO_RCVTIMEO, 5 ms, in jiffies: 8-12 ms at HZ=250): with one
// the kernel ends a read at a signal instead of restarting it, which the
// preemption needs.
//
// While blocking, deadlines are kept only as far as the drivers and the
// workers' context watch use them: a deadline in the past interrupts
// blocked reads and writes at once, a future one when it passes, by
// shutting the socket down; either way the connection is dead afterwards,
// as pgconn and go-sql-driver/mysql treat one whose deadline fired.
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

// waitSlice is the blocking socket's receive timeout (see the package
// comment).
const waitSlice = 5 * time.Millisecond

// Conn is a TCP or Unix connection that can be moved to blocking mode.
type Conn struct {
	net.Conn // Go's own, until Block
	raw      syscall.RawConn

	// fd is the blocking duplicate once Block ran (blocking is then set).
	blocking atomic.Bool
	fd       int
	network  string

	// mu: Read and Write hold it shared while in a system call; Block and
	// Close exclusively (Close only to close fd when none is in one).
	mu     sync.RWMutex
	closed bool

	dmu     sync.Mutex // guards timer
	timer   *time.Timer
	expired atomic.Bool // a deadline fired: the socket is shut down

	lastRead atomic.Int64 // when a read in Go's mode last returned, unix ns
	streak   int          // statements in a row that started back to back
}

var _ net.Conn = (*Conn)(nil)

// Wrap returns nc as a *Conn when it is a TCP or Unix socket, else nc
// itself (TLS is layered above the dialled connection, so never here).
func Wrap(nc net.Conn) (net.Conn, error) {
	network := ""
	switch nc.(type) {
	case *net.TCPConn:
		network = "tcp"
	case *net.UnixConn:
		network = "unix"
	default:
		return nc, nil
	}
	raw, err := nc.(syscall.Conn).SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("blocking connection: %w", err)
	}
	return &Conn{Conn: nc, raw: raw, fd: -1, network: network}, nil
}

// Block moves nc, when it is a *Conn, to blocking mode for good; it must
// be called between statements (no read or write in progress).
func Block(nc net.Conn) error {
	c, ok := nc.(*Conn)
	if !ok || c.blocking.Load() {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.blocking.Load() {
		return nil
	}
	fd, err := dupBlocking(c.raw)
	if err != nil {
		return fmt.Errorf("blocking connection: %w", err)
	}
	// Closing Go's connection takes the socket out of its netpoller; the
	// duplicate keeps the socket open.
	c.Conn.Close()
	c.fd = fd
	c.blocking.Store(true)
	hold()
	return nil
}

// backToBack and busyStreak define a busy connection for Busy.
const (
	backToBack = time.Millisecond
	busyStreak = 3
)

// Busy is called before each statement. It moves nc to blocking mode
// (Block) once its statements run back to back: busyStreak in a row, each
// starting within backToBack of the last read of the one before. A
// connection that waits between statements (the query steps' paced
// writers) stays in Go's netpoller, where waiting holds no P: each
// blocking connection raises GOMAXPROCS, and every P beyond the cores
// costs the other goroutines (measured: MariaDB qr100 25.2 -> 29.3 µs of
// client CPU per query with GOMAXPROCS 4 rather than 2).
func Busy(nc net.Conn) error {
	c, ok := nc.(*Conn)
	if !ok || c.blocking.Load() {
		return nil
	}
	if last := c.lastRead.Load(); last != 0 && time.Now().UnixNano()-last < int64(backToBack) {
		c.streak++
	} else {
		c.streak = 0
	}
	if c.streak < busyStreak {
		return nil
	}
	return Block(nc)
}

// Blocking reports whether nc is a *Conn in blocking mode.
func Blocking(nc net.Conn) bool {
	c, ok := nc.(*Conn)
	return ok && c.blocking.Load()
}

func (c *Conn) Read(p []byte) (int, error) {
	if !c.blocking.Load() {
		n, err := c.Conn.Read(p)
		c.lastRead.Store(time.Now().UnixNano())
		return n, err
	}
	return c.readBlocking(p)
}

func (c *Conn) Write(p []byte) (int, error) {
	if !c.blocking.Load() {
		return c.Conn.Write(p)
	}
	return c.writeBlocking(p)
}

// SetDeadline interrupts every blocked and future operation at t; the zero
// time cancels a pending deadline.
func (c *Conn) SetDeadline(t time.Time) error {
	if !c.blocking.Load() {
		return c.Conn.SetDeadline(t)
	}
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

// SetReadDeadline and SetWriteDeadline are SetDeadline while blocking: one
// socket shutdown interrupts both directions.
func (c *Conn) SetReadDeadline(t time.Time) error {
	if !c.blocking.Load() {
		return c.Conn.SetReadDeadline(t)
	}
	return c.SetDeadline(t)
}

func (c *Conn) SetWriteDeadline(t time.Time) error {
	if !c.blocking.Load() {
		return c.Conn.SetWriteDeadline(t)
	}
	return c.SetDeadline(t)
}

func (c *Conn) expire() {
	c.expired.Store(true)
	c.mu.RLock()
	defer c.mu.RUnlock()
	if !c.closed && c.fd >= 0 {
		shutdownFD(c.fd)
	}
}

func (c *Conn) opError(op string, err error) error {
	if c.expired.Load() {
		err = errDeadline
	}
	return &net.OpError{Op: op, Net: c.network, Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}

// Close shuts a blocking socket down, which wakes any blocked read or
// write, and closes it once they have returned.
func (c *Conn) Close() error {
	c.mu.RLock()
	if c.closed {
		c.mu.RUnlock()
		return nil
	}
	if !c.blocking.Load() {
		c.mu.RUnlock()
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.closed || c.blocking.Load() {
			return nil
		}
		c.closed = true
		return c.Conn.Close()
	}
	shutdownFD(c.fd)
	c.mu.RUnlock()
	c.dmu.Lock()
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	c.dmu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	release()
	return closeFD(c.fd)
}

// procs keeps GOMAXPROCS above the number of blocking connections.
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

// OptionKey is the server engines' option choosing how busy connections
// wait: "blocking" (the default) or "netpoller" (Go's own).
const OptionKey = "client_io"

// OptionHelp describes OptionKey for `rumbench engines -v`.
const OptionHelp = "how a connection that runs statements back to back waits for their replies: blocking (in recv, as a C client does; connections that wait between statements stay in Go's netpoller) or netpoller (every connection parks in Go's netpoller)"

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
