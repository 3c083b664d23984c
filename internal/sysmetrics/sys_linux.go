//go:build linux

package sysmetrics

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// deviceNumber returns the major:minor of a device node such as /dev/vda1.
func deviceNumber(node string) (uint32, uint32, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(node, &st); err != nil {
		return 0, 0, fmt.Errorf("stat %s: %w", node, err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFBLK {
		return 0, 0, fmt.Errorf("%s is not a block device", node)
	}
	// Linux encodes dev_t with the major in bits 8-19 and 32-43.
	rdev := uint64(st.Rdev)
	major := uint32((rdev>>8)&0xfff) | uint32((rdev>>32)&^0xfff)
	minor := uint32(rdev&0xff) | uint32((rdev>>12)&^0xff)
	return major, minor, nil
}

// AllocatedBytes returns the space dir occupies on disk: st_blocks × 512
// summed over every file and directory under it (not the apparent size, so
// sparse files and preallocation count as the filesystem sees them). Hard
// links count once. Files that vanish during the walk (compaction) are
// skipped.
func AllocatedBytes(dir string) (int64, error) {
	type ino struct{ dev, ino uint64 }
	seen := map[ino]bool{}
	var total int64
	err := filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p != dir {
				return nil
			}
			return err
		}
		var st syscall.Stat_t
		if err := syscall.Lstat(p, &st); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil
			}
			return fmt.Errorf("stat %s: %w", p, err)
		}
		if st.Nlink > 1 && st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
			k := ino{uint64(st.Dev), st.Ino}
			if seen[k] {
				return nil
			}
			seen[k] = true
		}
		total += st.Blocks * 512
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("measure size of %s: %w", dir, err)
	}
	return total, nil
}

// SyncFilesystem flushes the dirty pages of the filesystem holding dir
// (syncfs(2)), so writes the OS still buffers are charged to the step that
// made them rather than to the next one (and, in the floor benchmarks, so
// one side's writes are not written back while the next side runs).
func SyncFilesystem(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open %s: %w", dir, err)
	}
	defer f.Close()
	if err := unix.Syncfs(int(f.Fd())); err != nil {
		return fmt.Errorf("syncfs %s: %w", dir, err)
	}
	return nil
}

// procBuf reads small /proc files into one reused buffer with raw system
// calls: no *os.File, no allocation per file, and no netpoller registration
// (os.Open tries one for every regular file).
type procBuf struct{ b []byte }

// read returns path's contents, valid until the next read.
func (p *procBuf) read(path string) ([]byte, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	if p.b == nil {
		p.b = make([]byte, 16<<10)
	}
	n := 0
	for {
		if n == len(p.b) {
			p.b = append(p.b, make([]byte, len(p.b))...)
		}
		m, err := unix.Read(fd, p.b[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if m == 0 {
			return p.b[:n], nil
		}
		n += m
	}
}

// cpuTime is CPU time split into user and system, µs.
type cpuTime struct{ user, sys uint64 }

func (c cpuTime) total() uint64 { return c.user + c.sys }

// threadCPU is the calling OS thread's CPU time (getrusage(RUSAGE_THREAD):
// the scheduler's nanosecond count, split into user and system by the
// kernel's tick sampling).
func threadCPU() (cpuTime, error) {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		return cpuTime{}, fmt.Errorf("getrusage(RUSAGE_THREAD): %w", err)
	}
	return cpuTime{user: usOf(ru.Utime), sys: usOf(ru.Stime)}, nil
}

// threadCPUus is threadCPU's total.
func threadCPUus() (uint64, error) {
	c, err := threadCPU()
	return c.total(), err
}

func usOf(tv unix.Timeval) uint64 { return uint64(tv.Sec)*1_000_000 + uint64(tv.Usec) }

// selfUsage is rumbench's own process CPU (user and sys, µs: getrusage
// derives it from the scheduler's count, not from 10 ms ticks like
// /proc/PID/stat) and context switches, exited threads included.
func selfUsage() (cpu cpuTime, cs uint64, err error) {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return cpuTime{}, 0, fmt.Errorf("getrusage(RUSAGE_SELF): %w", err)
	}
	return cpuTime{user: usOf(ru.Utime), sys: usOf(ru.Stime)}, uint64(ru.Nvcsw + ru.Nivcsw), nil
}

// syncFiles writes the engine's own dirty pages back: every regular file
// under dir, with sync_file_range(2) (start writeback of the whole file and
// wait for it). Only the engine's files are written, not other processes'
// dirty pages on the same filesystem (syncfs would write and charge them
// to the step), and the device is sent no cache-flush command and the
// journal no commit (fsync would send one per file: a thousand flushes for
// a server's data dir, charged to the step's flushes per operation). The
// bytes reach the device's counters; durability is the engine's business.
// Files that vanish during the walk (compaction, a checkpoint removing a
// WAL segment) are skipped. It returns how many files it wrote back.
func syncFiles(dir string) (int, error) {
	n := 0
	const how = unix.SYNC_FILE_RANGE_WAIT_BEFORE | unix.SYNC_FILE_RANGE_WRITE | unix.SYNC_FILE_RANGE_WAIT_AFTER
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p != dir {
				return nil
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil // directories, sockets, pipes, symlinks: no data pages
		}
		fd, err := unix.Open(p, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
		if err != nil {
			if errors.Is(err, unix.ENOENT) {
				return nil
			}
			return fmt.Errorf("open %s: %w", p, err)
		}
		err = unix.SyncFileRange(fd, 0, 0, how)
		unix.Close(fd)
		if err != nil {
			return fmt.Errorf("sync_file_range %s: %w", p, err)
		}
		n++
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("write back the files under %s: %w", dir, err)
	}
	return n, nil
}
