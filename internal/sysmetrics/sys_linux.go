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

// syncFilesystem flushes the dirty pages of the filesystem holding dir
// (syncfs(2)), so writes the OS still buffers are charged to the step that
// made them rather than to the next one.
func syncFilesystem(dir string) error {
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
