//go:build !linux

package sysmetrics

import "errors"

var errNotLinux = errors.New("not Linux: /proc and /sys are not available")

func deviceNumber(string) (uint32, uint32, error) { return 0, 0, errNotLinux }

// AllocatedBytes is only implemented on Linux.
func AllocatedBytes(string) (int64, error) { return 0, errNotLinux }

func syncFilesystem(string) error { return errNotLinux }
