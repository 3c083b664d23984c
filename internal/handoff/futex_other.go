//go:build !linux

package handoff

import (
	"sync/atomic"
	"time"
)

// Without futexes every wait parks (Wait checks futexSupported).
const futexSupported = false

func futexWait(*atomic.Uint32, uint32, time.Duration) bool { return false }

func futexWakeAll(*atomic.Uint32) {}
