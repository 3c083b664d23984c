// Package diskfull recognises "no space left" failures of engines, servers
// and the results bundle, and names the filesystem that filled up, so a
// full disk ends a step with one line that says which device is full.
package diskfull

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"

	"rumbench/internal/units"

	"github.com/prometheus/procfs"

	"rumbench/internal/model"
)

// Error is a write that failed because a filesystem is full.
type Error struct {
	// What names the directory's role: "data dir", "--out".
	What string
	Dir  string
	// FS describes the filesystem holding Dir (device, type, mount point).
	FS  string
	Err error
}

func (e *Error) Error() string {
	if e.Dir == "" {
		return fmt.Sprintf("the database server's disk is full: free space on the server (%v)", e.Err)
	}
	return fmt.Sprintf("disk full: the %s %s is on %s, which has no space left: free space there or choose a %s on a larger filesystem (%v)",
		e.What, e.Dir, e.FS, e.What, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// messages are how engines and servers say a disk is full when their error
// neither wraps ENOSPC nor is marked model.ErrDiskFull (an engine's error
// seen past a layer that kept only its text, the bundle's own writes).
var messages = []string{
	"no space left on device",  // strerror(ENOSPC): RocksDB, WiredTiger, PostgreSQL, Pebble
	"database or disk is full", // SQLITE_FULL
	"disk full",                // MariaDB ("Disk full (...)"), generic
	"' is full",                // MariaDB error 1114 "The table 'x' is full"
	"errno: 28",                // MariaDB OS error 28 (ENOSPC)
	"os error 28",
}

// Is reports whether err says a filesystem is full.
func Is(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, model.ErrDiskFull) {
		return true
	}
	var de *Error
	if errors.As(err, &de) {
		return true
	}
	msg := strings.ToLower(err.Error())
	for _, m := range messages {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}

// Explain wraps err, when it says a filesystem is full, in an Error naming
// dir's filesystem; other errors are returned as they are.
func Explain(err error, what, dir string) error {
	if err == nil || !(Is(err) || nearlyFull(dir)) {
		return err
	}
	var de *Error
	if errors.As(err, &de) {
		return err
	}
	return &Error{What: what, Dir: dir, FS: Describe(dir), Err: err}
}

// nearlyFull reports whether dir's filesystem has less than 1 MiB (or 0.1%)
// left: an engine that fails there without saying why (WiredTiger's
// WT_PANIC) most likely ran out of space.
func nearlyFull(dir string) bool {
	if dir == "" {
		return false
	}
	var st syscall.Statfs_t
	if syscall.Statfs(dir, &st) != nil || st.Blocks == 0 {
		return false
	}
	free := uint64(st.Bavail) * uint64(st.Bsize)
	return free < 1<<20 || st.Bavail < st.Blocks/1000
}

// Describe names the filesystem holding dir: "device /dev/vda1 (ext4,
// mounted on /)" or "tmpfs (tmpfs, mounted on /mnt/x)", with its free space.
func Describe(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	for p := abs; ; p = filepath.Dir(p) {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			abs = real
			break
		}
		if p == filepath.Dir(p) {
			break
		}
	}
	if dir == "" {
		return "the database server's filesystem"
	}
	desc := "the filesystem of " + abs
	if mounts, err := procfs.GetMounts(); err == nil {
		var best *procfs.MountInfo
		for _, m := range mounts {
			mp := m.MountPoint
			if mp == "/" || abs == mp || strings.HasPrefix(abs, mp+"/") {
				if best == nil || len(mp) >= len(best.MountPoint) {
					best = m
				}
			}
		}
		if best != nil {
			desc = fmt.Sprintf("device %s (%s, mounted on %s)", best.Source, best.FSType, best.MountPoint)
		}
	}
	var st syscall.Statfs_t
	if syscall.Statfs(abs, &st) == nil {
		free := int64(st.Bavail) * int64(st.Bsize)
		total := int64(st.Blocks) * int64(st.Bsize)
		desc += fmt.Sprintf(" with %s free of %s", units.IEC(free), units.IEC(total))
	}
	return desc
}
