package sysmetrics

import (
	"fmt"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// hwCounterFigures are the per-operation hardware-counter figures a host
// with a PMU could give; without one they are null with hwCountersWhy.
var hwCounterFigures = []string{"cycles_per_op", "instructions_per_op", "ipc", "llc_misses_per_op"}

// hwCountersWhy says why the host's hardware counters cannot be read ("" if
// they can): it asks the kernel for a cycles counter on this process, as
// perf stat -e cycles does. A virtual machine without a virtual PMU has
// none (perf stat says "<not supported>").
var hwCountersWhy = sync.OnceValue(func() string {
	attr := unix.PerfEventAttr{
		Type:   unix.PERF_TYPE_HARDWARE,
		Config: unix.PERF_COUNT_HW_CPU_CYCLES,
		Size:   uint32(unsafe.Sizeof(unix.PerfEventAttr{})),
		Bits:   unix.PerfBitDisabled | unix.PerfBitExcludeKernel | unix.PerfBitExcludeHv,
	}
	fd, err := unix.PerfEventOpen(&attr, 0, -1, -1, unix.PERF_FLAG_FD_CLOEXEC)
	if err != nil {
		return fmt.Sprintf("the host has no hardware performance counters (perf_event_open of a cycles counter: %v; a VM without a virtual PMU)", err)
	}
	unix.Close(fd)
	return "hardware counters exist on this host but rumbench does not read them yet"
})
