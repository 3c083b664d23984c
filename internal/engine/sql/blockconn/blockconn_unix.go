//go:build unix

package blockconn

import (
	"io"
	"net"
	"os"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

var errDeadline = os.ErrDeadlineExceeded

// dupBlocking returns a blocking duplicate of raw's socket whose system
// calls last at most waitSlice.
func dupBlocking(raw syscall.RawConn) (int, error) {
	fd := -1
	var derr error
	if err := raw.Control(func(s uintptr) { fd, derr = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return -1, err
	}
	if derr != nil {
		return -1, derr
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return -1, err
	}
	tv := unix.NsecToTimeval(waitSlice.Nanoseconds())
	for _, opt := range []int{unix.SO_RCVTIMEO, unix.SO_SNDTIMEO} {
		if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, opt, &tv); err != nil {
			unix.Close(fd)
			return -1, err
		}
	}
	return fd, nil
}

func (c *Conn) readBlocking(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.closed {
		return 0, c.opError("read", net.ErrClosed)
	}
	for {
		n, err := rawRead(c.fd, p)
		switch {
		case err == unix.EINTR:
			// A signal: most often the runtime's preemption request
			// (sysmon's, or a stop of the world), which this call
			// answers.
			runtime.Gosched()
			continue
		case err == unix.EAGAIN:
			if c.expired.Load() {
				return 0, c.opError("read", err)
			}
			continue // a wait slice ended
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

func (c *Conn) writeBlocking(p []byte) (int, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if c.closed {
		return 0, c.opError("write", net.ErrClosed)
	}
	done := 0
	for done < len(p) {
		n, err := rawWrite(c.fd, p[done:])
		if err == unix.EINTR {
			runtime.Gosched()
		}
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

// rawRead and rawWrite are read(2) and write(2) without telling the
// scheduler: the goroutine keeps its P as "running" while blocked.
func rawRead(fd int, p []byte) (int, error) {
	r, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

func rawWrite(fd int, p []byte) (int, error) {
	r, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

func shutdownFD(fd int) { _ = unix.Shutdown(fd, unix.SHUT_RDWR) }

func closeFD(fd int) error { return unix.Close(fd) }
