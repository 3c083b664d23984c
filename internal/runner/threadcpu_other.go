//go:build !linux

package runner

import (
	"errors"
	"time"
)

func threadCPU() (time.Duration, error) {
	return 0, errors.New("per-thread CPU time is read on Linux only")
}
