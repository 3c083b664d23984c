//go:build !linux

package sysmetrics

import "errors"

var errNotLinux = errors.New("not Linux: /proc and /sys are not available")

func deviceNumber(string) (uint32, uint32, error) { return 0, 0, errNotLinux }

// AllocatedBytes is only implemented on Linux.
func AllocatedBytes(string) (int64, error) { return 0, errNotLinux }

// SyncFilesystem is only implemented on Linux.
func SyncFilesystem(string) error { return errNotLinux }

type procBuf struct{}

func (p *procBuf) read(string) ([]byte, error) { return nil, errNotLinux }

type cpuTime struct{ user, sys uint64 }

func (c cpuTime) total() uint64 { return c.user + c.sys }

func threadCPU() (cpuTime, error) { return cpuTime{}, errNotLinux }

func threadCPUus() (uint64, error) { return 0, errNotLinux }

func selfUsage() (cpuTime, uint64, error) { return cpuTime{}, 0, errNotLinux }

func syncFiles(string) (int, error) { return 0, errNotLinux }
