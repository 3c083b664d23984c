//go:build unix

package blockconn

import (
	"fmt"
	"io"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// Wrap turns nc, a *net.TCPConn or *net.UnixConn just dialled, into a
// blocking Conn on a duplicate of its socket, and closes nc. Any other
// connection (TLS is layered above, so never here) is returned unchanged.
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
	fd := -1
	var derr error
	if err := raw.Control(func(s uintptr) { fd, derr = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		derr = err
	}
	c := &Conn{fd: fd, local: nc.LocalAddr(), remote: nc.RemoteAddr(), network: network}
	nc.Close()
	if derr != nil {
		return nil, fmt.Errorf("blocking connection: duplicate the socket: %w", derr)
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("blocking connection: %w", err)
	}
	// A system call that lasts 10 ms makes Go's sysmon take the thread's
	// P away and hand it to another thread, and reset its own polling to
	// every 20 µs: each long server wait (a commit's fsync) then costs
	// tens of wake-ups. Waits are cut into slices shorter than that
	// (the call returns EAGAIN and is made again).
	tv := unix.NsecToTimeval(waitSlice.Nanoseconds())
	for _, opt := range []int{unix.SO_RCVTIMEO, unix.SO_SNDTIMEO} {
		if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, opt, &tv); err != nil {
			unix.Close(fd)
			return nil, fmt.Errorf("blocking connection: set socket timeout: %w", err)
		}
	}
	return c, nil
}

func (c *Conn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.closed {
		return 0, c.opError("read", net.ErrClosed)
	}
	for {
		n, err := unix.Read(c.fd, p)
		switch {
		case err == unix.EINTR || err == unix.EAGAIN:
			if c.expired.Load() {
				return 0, c.opError("read", err)
			}
			continue
		case err != nil:
			return 0, c.opError("read", err)
		case n == 0:
			if c.expired.Load() {
				return 0, c.opError("read", nil)
			}
			return 0, io.EOF
		}
		return n, nil
	}
}

func (c *Conn) Write(p []byte) (int, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.closed {
		return 0, c.opError("write", net.ErrClosed)
	}
	done := 0
	for done < len(p) {
		n, err := unix.Write(c.fd, p[done:])
		if (err == unix.EINTR || err == unix.EAGAIN) && !c.expired.Load() {
			continue
		}
		if err != nil {
			return done, c.opError("write", err)
		}
		done += n
	}
	return done, nil
}

func shutdown(fd int) { _ = unix.Shutdown(fd, unix.SHUT_RDWR) }

func closeFD(fd int) error { return unix.Close(fd) }
