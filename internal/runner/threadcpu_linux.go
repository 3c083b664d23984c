package runner

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU is the calling OS thread's CPU time (CLOCK_THREAD_CPUTIME_ID:
// the scheduler's own nanosecond count, not tick-sampled like rusage).
func threadCPU() (time.Duration, error) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, fmt.Errorf("clock_gettime(CLOCK_THREAD_CPUTIME_ID): %w", err)
	}
	return time.Duration(ts.Nano()), nil
}
