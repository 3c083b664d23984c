//go:build unix

package blockconn

import "golang.org/x/sys/unix"

func setNonblock(fd int, on bool) error { return unix.SetNonblock(fd, on) }

func shutdownFD(fd int) { _ = unix.Shutdown(fd, unix.SHUT_RDWR) }
