//go:build unix

package blockconn

import (
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// pair returns a blocking client connection and the server's end of it.
func pair(t *testing.T) (*Conn, net.Conn) {
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

func TestRoundTripOnABlockingSocket(t *testing.T) {
	c, srv := pair(t)
	flags, err := unix.FcntlInt(uintptr(c.fd), unix.F_GETFL, 0)
	if err != nil {
		t.Fatal(err)
	}
	if flags&unix.O_NONBLOCK != 0 {
		t.Fatal("the wrapped socket is still non-blocking")
	}
	go func() {
		buf := make([]byte, 5)
		if _, err := io.ReadFull(srv, buf); err == nil {
			srv.Write(append(buf, '!'))
		}
	}()
	if _, err := c.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 6)
	if _, err := io.ReadFull(c, got); err != nil || string(got) != "hello!" {
		t.Fatalf("read %q, %v", got, err)
	}
	srv.Close()
	if n, err := c.Read(got); n != 0 || err != io.EOF {
		t.Fatalf("after the peer closed: %d, %v; want 0, EOF", n, err)
	}
}

// waitRead runs a Read that blocks (the peer sends nothing) and returns
// its error once it returns.
func waitRead(c *Conn) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 1))
		done <- err
	}()
	return done
}

func timeoutErr(t *testing.T, err error) {
	t.Helper()
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read returned %v; want a timeout (os.ErrDeadlineExceeded), as the drivers expect", err)
	}
}

// A deadline in the past interrupts a read blocked in the kernel: how the
// workers' context watch and pgconn cancel a statement.
func TestPastDeadlineInterruptsBlockedRead(t *testing.T) {
	c, _ := pair(t)
	done := waitRead(c)
	time.Sleep(20 * time.Millisecond) // let it block; the test holds either way
	c.SetDeadline(time.Unix(1, 0))
	timeoutErr(t, <-done)
}

func TestFutureDeadlineFires(t *testing.T) {
	c, _ := pair(t)
	c.SetDeadline(time.Now().Add(30 * time.Millisecond))
	timeoutErr(t, <-waitRead(c))
}

func TestClearedDeadlineDoesNotFire(t *testing.T) {
	c, srv := pair(t)
	c.SetDeadline(time.Now().Add(10 * time.Millisecond))
	c.SetDeadline(time.Time{})
	done := waitRead(c)
	time.Sleep(50 * time.Millisecond)
	srv.Write([]byte("x"))
	if err := <-done; err != nil {
		t.Fatalf("read after a cleared deadline: %v", err)
	}
}

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
	if _, err := c.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("write after close: %v, want net.ErrClosed", err)
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
