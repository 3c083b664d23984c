//go:build unix

package blockconn

import (
	"io"
	"net"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// pair returns a client connection in blocking mode and the server's end.
func pair(t *testing.T) (*Conn, net.Conn) {
	t.Helper()
	c, srv := wrapped(t)
	if err := Block(c); err != nil {
		t.Fatal(err)
	}
	return c, srv
}

// wrapped returns a client connection still in Go's mode and the server's
// end.
func wrapped(t *testing.T) (*Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	acc := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		acc <- c
	}()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	wc, err := Wrap(nc)
	if err != nil {
		t.Fatal(err)
	}
	srv := <-acc
	t.Cleanup(func() { wc.Close(); srv.Close() })
	return wc.(*Conn), srv
}

func nonblocking(t *testing.T, c *Conn) bool {
	t.Helper()
	flags, err := unix.FcntlInt(uintptr(c.fd), unix.F_GETFL, 0)
	if err != nil {
		t.Fatal(err)
	}
	return flags&unix.O_NONBLOCK != 0
}

func echo(srv net.Conn) {
	buf := make([]byte, 5)
	if _, err := io.ReadFull(srv, buf); err == nil {
		srv.Write(append(buf, '!'))
	}
}

func roundTrip(t *testing.T, c net.Conn) {
	t.Helper()
	if _, err := c.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 6)
	if _, err := io.ReadFull(c, got); err != nil || string(got) != "hello!" {
		t.Fatalf("read %q, %v", got, err)
	}
}

// A connection works in Go's netpoller until Block, and blocking after it,
// on a socket without O_NONBLOCK.
func TestRoundTripBeforeAndAfterBlock(t *testing.T) {
	c, srv := pair(t)
	if nonblocking(t, c) {
		t.Fatal("in blocking mode the socket is still O_NONBLOCK")
	}
	go echo(srv)
	roundTrip(t, c)
}

// Before Block, deadlines are Go's own: a future one fires and the
// connection stays usable once it is cleared.
func TestBeforeBlockDeadlinesAreGos(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	acc := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		acc <- c
	}()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c, err := Wrap(nc)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	srv := <-acc
	defer srv.Close()
	c.SetReadDeadline(time.Now().Add(30 * time.Millisecond))
	if err := <-waitRead(c); err == nil {
		t.Fatal("read past its deadline returned no error")
	} else if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
		t.Fatalf("read past its deadline: %v, want a timeout", err)
	}
	c.SetReadDeadline(time.Time{})
	go echo(srv)
	roundTrip(t, c)
	if Blocking(c) {
		t.Fatal("blocking without Block")
	}
}

// A future deadline fires in blocking mode too.
func TestFutureDeadlineFiresWhileBlocking(t *testing.T) {
	c, _ := pair(t)
	c.SetDeadline(time.Now().Add(30 * time.Millisecond))
	err := <-waitRead(c)
	if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
		t.Fatalf("read past its deadline: %v, want a timeout", err)
	}
}

// waitRead runs a Read that blocks (the peer sends nothing) and returns
// its error once it returns.
func waitRead(c net.Conn) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 1))
		done <- err
	}()
	return done
}

// A deadline in the past interrupts a read blocked in the kernel: how the
// workers' context watch cancels a statement.
func TestPastDeadlineInterruptsBlockedRead(t *testing.T) {
	c, _ := pair(t)
	done := waitRead(c)
	time.Sleep(20 * time.Millisecond) // let it block; the test holds either way
	c.SetDeadline(time.Unix(1, 0))
	if err := <-done; err == nil {
		t.Fatal("the interrupted read returned no error")
	}
}

// Go's Close would wait for a read blocked in the kernel; Close wakes it.
func TestCloseWakesBlockedRead(t *testing.T) {
	c, _ := pair(t)
	done := waitRead(c)
	time.Sleep(20 * time.Millisecond)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err == nil {
		t.Fatal("read on a closed connection returned no error")
	}
}

// While connections block GOMAXPROCS stays above their number (so sysmon
// never finds every P held by a blocked thread), and it is restored when
// the last one closes.
func TestGOMAXPROCSAboveBlockingConnections(t *testing.T) {
	base := runtime.GOMAXPROCS(0)
	var conns []*Conn
	for range base + 2 {
		c, _ := pair(t)
		conns = append(conns, c)
	}
	if got, want := runtime.GOMAXPROCS(0), len(conns)+1; got < want {
		t.Fatalf("GOMAXPROCS %d with %d blocking connections; want at least %d", got, len(conns), want)
	}
	for _, c := range conns {
		c.Close()
		c.Close() // a second Close releases nothing
	}
	if got := runtime.GOMAXPROCS(0); got != base {
		t.Fatalf("GOMAXPROCS %d after every connection closed; want the original %d", got, base)
	}
}

func TestParseOption(t *testing.T) {
	for v, want := range map[string]bool{"": true, "blocking": true, "netpoller": false} {
		if got, err := ParseOption("postgres", v); err != nil || got != want {
			t.Errorf("%q: %v, %v; want %v", v, got, err, want)
		}
	}
	if _, err := ParseOption("postgres", "epoll"); err == nil || err.Error() != `postgres: bad client_io "epoll": want blocking or netpoller` {
		t.Errorf("bad value: %v", err)
	}
}

// A goroutine that waits in one long blocking read (300 ms, in 5 ms
// receive timeouts) keeps Go's sysmon quiet: to the scheduler it is
// running, so sysmon only preempts it every 10 ms and takes nothing (a
// read through the scheduler's system call entry has its P taken, and
// sysmon then polls every 20 µs for a millisecond). Counted as the
// process's voluntary context switches: about 150 over the wait, 500-1000
// when sysmon takes the P.
func TestBlockedReaderKeepsSysmonQuiet(t *testing.T) {
	c, srv := pair(t)
	roundTrip := func() {
		go func() {
			buf := make([]byte, 1)
			if _, err := io.ReadFull(srv, buf); err == nil {
				time.Sleep(300 * time.Millisecond)
				srv.Write(buf)
			}
		}()
		if _, err := c.Write([]byte{1}); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(c, make([]byte, 1)); err != nil {
			t.Fatal(err)
		}
	}
	roundTrip() // sysmon settles
	var r0, r1 unix.Rusage
	unix.Getrusage(unix.RUSAGE_SELF, &r0)
	roundTrip()
	unix.Getrusage(unix.RUSAGE_SELF, &r1)
	if n := r1.Nvcsw - r0.Nvcsw; n > 400 {
		t.Errorf("%d voluntary context switches in 300 ms of one blocked read; want at most 400", n)
	}
}

// Short round trips, as a worker's statements are, with the server (here
// in the same process) replying after 1 ms: about 3 voluntary context
// switches each (the client's and the server's own), 7 when the client
// yielded every 4 ms of waiting or sysmon took its P.
func TestBlockedRoundTripsKeepSysmonQuiet(t *testing.T) {
	c, srv := pair(t)
	go func() {
		buf := make([]byte, 1)
		for {
			if _, err := io.ReadFull(srv, buf); err != nil {
				return
			}
			time.Sleep(time.Millisecond)
			srv.Write(buf)
		}
	}()
	roundTrips := func(n int) {
		buf := make([]byte, 1)
		for range n {
			if _, err := c.Write(buf); err != nil {
				t.Fatal(err)
			}
			if _, err := io.ReadFull(c, buf); err != nil {
				t.Fatal(err)
			}
		}
	}
	roundTrips(20)
	var r0, r1 unix.Rusage
	unix.Getrusage(unix.RUSAGE_SELF, &r0)
	const n = 200
	roundTrips(n)
	unix.Getrusage(unix.RUSAGE_SELF, &r1)
	if per := float64(r1.Nvcsw-r0.Nvcsw) / n; per > 5 {
		t.Errorf("%.1f voluntary context switches per round trip; want at most 5", per)
	}
}

// A connection moves to blocking mode once its statements run back to
// back (Busy before each), not while it waits between them.
func TestBusyBlocksBackToBackStatements(t *testing.T) {
	c, srv := wrapped(t)
	go func() {
		buf := make([]byte, 5)
		for {
			if _, err := io.ReadFull(srv, buf); err != nil {
				return
			}
			srv.Write(append(buf, '!'))
		}
	}()
	statement := func() {
		t.Helper()
		if err := Busy(c); err != nil {
			t.Fatal(err)
		}
		roundTrip(t, c)
	}
	for range 2 * busyStreak {
		statement()
		time.Sleep(5 * backToBack) // a paced writer
	}
	if Blocking(c) {
		t.Fatal("a connection that waits between statements moved to blocking mode")
	}
	for range busyStreak + 1 {
		statement()
	}
	if !Blocking(c) {
		t.Fatal("a connection running statements back to back is not in blocking mode")
	}
	statement()
}

// A goroutine blocked in a read does not hold up the garbage collector's
// stops of the world: the runtime's preemption signal ends the read
// (EINTR, the socket having a receive timeout), and the read answers it.
// A read that ignored the signal would hold every collection until the
// reply, which comes after them.
func TestBlockedReadAnswersTheRuntime(t *testing.T) {
	c, srv := pair(t)
	done := make(chan error, 1)
	go func() {
		_, err := io.ReadFull(c, make([]byte, 1))
		done <- err
	}()
	time.Sleep(50 * time.Millisecond) // blocked by now
	start := time.Now()
	for range 10 {
		runtime.GC()
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("10 collections took %v beside a blocked read: the read does not answer the runtime", d)
	}
	srv.Write([]byte{1})
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
