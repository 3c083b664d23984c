//go:build !linux

package sysmetrics

import "errors"

var errNotLinux = errors.New("not Linux: /proc and /sys are not available")

func deviceNumber(string) (uint32, uint32, error) { return 0, 0, errNotLinux }

// AllocatedBytes is only implemented on Linux.
func AllocatedBytes(string) (int64, error) { return 0, errNotLinux }

func syncFilesystem(string) error { return errNotLinux }

type procBuf struct{}

func (p *procBuf) read(string) ([]byte, error) { return nil, errNotLinux }

func threadCPUus() (uint64, error) { return 0, errNotLinux }

func selfUsage() (uint64, uint64, error) { return 0, 0, errNotLinux }
