package handoff

import (
	"math"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

const futexSupported = true

// futex(2) operations (linux/futex.h; golang.org/x/sys/unix has no names
// for them).
const (
	futexWaitPrivate = 0 | 128 // FUTEX_WAIT | FUTEX_PRIVATE_FLAG
	futexWakePrivate = 1 | 128 // FUTEX_WAKE | FUTEX_PRIVATE_FLAG
)

// futexWait sleeps while *addr == val, at most d (a private futex: the
// word is this process's own), and reports whether a signal ended it.
// EAGAIN (the word changed) and ETIMEDOUT send the caller back to look at
// the word.
func futexWait(addr *atomic.Uint32, val uint32, d time.Duration) (interrupted bool) {
	ts := unix.NsecToTimespec(d.Nanoseconds())
	_, _, e := unix.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWaitPrivate, uintptr(val), uintptr(unsafe.Pointer(&ts)), 0, 0)
	return e == unix.EINTR
}

// futexWakeAll wakes every thread sleeping on addr.
func futexWakeAll(addr *atomic.Uint32) {
	_, _, _ = unix.RawSyscall6(unix.SYS_FUTEX, uintptr(unsafe.Pointer(addr)), futexWakePrivate, uintptr(math.MaxInt32), 0, 0, 0)
}
