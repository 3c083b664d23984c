package sysmetrics

import (
	"golang.org/x/sys/unix"

	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"
)

// Device is the block device that holds a directory.
type Device struct {
	// Name is the kernel's name, as in /proc/diskstats (vda1, dm-0, loop3).
	Name string `json:"name"`
	// Disk is the whole disk holding a partition (vda for vda1); for whole
	// disks, dm and loop devices it equals Name.
	Disk string `json:"disk"`
	// Kind is disk, partition, dm or loop.
	Kind  string `json:"kind"`
	Major uint32 `json:"major"`
	Minor uint32 `json:"minor"`
	// DMName is the device-mapper name (e.g. vg0-data), for dm devices.
	DMName string `json:"dm_name,omitempty"`
	// Backing is a loop device's backing file.
	Backing string `json:"backing_file,omitempty"`
	// MountPoint, FSType and Source describe the mount the directory is on.
	MountPoint string `json:"mount_point"`
	FSType     string `json:"fs_type"`
	Source     string `json:"source"`
}

// String names the device for notes: "vda1 (partition of vda)".
func (d *Device) String() string {
	switch {
	case d.Kind == "partition":
		return fmt.Sprintf("%s (partition of %s)", d.Name, d.Disk)
	case d.DMName != "":
		return fmt.Sprintf("%s (dm %s)", d.Name, d.DMName)
	case d.Backing != "":
		return fmt.Sprintf("%s (loop on %s)", d.Name, d.Backing)
	}
	return d.Name
}

// Paths of the kernel interfaces; tests never change them, but keeping them
// in one place documents what is read.
const (
	procRoot = procfs.DefaultMountPoint
	sysRoot  = "/sys"
)

// ResolveDevice finds the block device holding dir: the mount it is on from
// /proc/self/mountinfo (longest matching mount point, the topmost of stacked
// mounts), that mount's major:minor, and the device's identity from
// /sys/dev/block. Filesystems without a device number of their own (btrfs,
// overlay) are followed to their source device or upper directory.
func ResolveDevice(dir string) (*Device, error) {
	return resolveDevice(dir, 0)
}

func resolveDevice(dir string, depth int) (*Device, error) {
	if depth > 4 {
		return nil, fmt.Errorf("resolve device of %s: too many stacked filesystems", dir)
	}
	path, err := existingPath(dir)
	if err != nil {
		return nil, err
	}
	mounts, err := procfs.GetMounts()
	if err != nil {
		return nil, fmt.Errorf("read mount table: %w", err)
	}
	m := mountOf(mounts, path)
	if m == nil {
		return nil, fmt.Errorf("no mount in /proc/self/mountinfo holds %s", path)
	}
	major, minor, err := parseMajorMinor(m.MajorMinorVer)
	if err != nil {
		return nil, fmt.Errorf("mount %s: %w", m.MountPoint, err)
	}
	if major == 0 {
		// Anonymous device numbers: overlay keeps its writes in upperdir;
		// btrfs and the like name a real device as the mount source.
		if up := m.SuperOptions["upperdir"]; m.FSType == "overlay" && up != "" {
			return resolveDevice(up, depth+1)
		}
		if strings.HasPrefix(m.Source, "/dev/") {
			if major, minor, err = deviceNumber(m.Source); err != nil {
				return nil, fmt.Errorf("mount %s (%s): %w", m.MountPoint, m.FSType, err)
			}
		} else {
			return nil, fmt.Errorf("%s is on %s (%s, source %q), which has no block device", path, m.MountPoint, m.FSType, m.Source)
		}
	}
	d, err := identify(major, minor)
	if err != nil {
		return nil, err
	}
	d.MountPoint, d.FSType, d.Source = m.MountPoint, m.FSType, m.Source
	return d, nil
}

// existingPath returns dir made absolute with symlinks resolved, walking up
// to the nearest existing ancestor (the data dir may not exist yet).
func existingPath(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", dir, err)
	}
	for p := abs; ; p = filepath.Dir(p) {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return real, nil
		}
		if p == filepath.Dir(p) {
			return "", fmt.Errorf("resolve %s: no existing ancestor", dir)
		}
	}
}

// mountOf returns the mount holding path: the longest mount point that is a
// prefix of it, the last listed (topmost) among equals.
func mountOf(mounts []*procfs.MountInfo, path string) *procfs.MountInfo {
	var best *procfs.MountInfo
	for _, m := range mounts {
		mp := m.MountPoint
		if !(mp == "/" || path == mp || strings.HasPrefix(path, mp+"/")) {
			continue
		}
		if best == nil || len(mp) >= len(best.MountPoint) {
			best = m
		}
	}
	return best
}

func parseMajorMinor(s string) (uint32, uint32, error) {
	a, b, ok := strings.Cut(s, ":")
	if !ok {
		return 0, 0, fmt.Errorf("bad major:minor %q", s)
	}
	ma, err1 := strconv.ParseUint(a, 10, 32)
	mi, err2 := strconv.ParseUint(b, 10, 32)
	if err := errors.Join(err1, err2); err != nil {
		return 0, 0, fmt.Errorf("bad major:minor %q: %w", s, err)
	}
	return uint32(ma), uint32(mi), nil
}

// identify names device major:minor through /sys/dev/block, whose entry links
// into the device tree: .../block/vda for a disk, .../block/vda/vda1 for a
// partition (which also has a "partition" file).
func identify(major, minor uint32) (*Device, error) {
	link := filepath.Join(sysRoot, "dev", "block", fmt.Sprintf("%d:%d", major, minor))
	target, err := os.Readlink(link)
	if err != nil {
		return nil, fmt.Errorf("device %d:%d is not in /sys/dev/block: %w", major, minor, err)
	}
	d := &Device{Name: filepath.Base(target), Major: major, Minor: minor, Kind: "disk"}
	d.Disk = d.Name
	switch {
	case fileExists(filepath.Join(link, "partition")):
		d.Kind = "partition"
		d.Disk = filepath.Base(filepath.Dir(target))
	case fileExists(filepath.Join(link, "dm")):
		d.Kind = "dm"
		if bfs, err := blockdevice.NewFS(procRoot, sysRoot); err == nil {
			if info, err := bfs.SysBlockDeviceMapperInfo(d.Name); err == nil {
				d.DMName = info.Name
			}
		}
	case fileExists(filepath.Join(link, "loop")):
		d.Kind = "loop"
		if b, err := os.ReadFile(filepath.Join(link, "loop", "backing_file")); err == nil {
			d.Backing = strings.TrimSpace(string(b))
		}
	}
	return d, nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// memoryFS returns the name of the memory filesystem (tmpfs, ramfs) that
// holds dir, or "" when it is another filesystem or cannot be told.
func memoryFS(dir string) string {
	path, err := existingPath(dir)
	if err != nil {
		return ""
	}
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return ""
	}
	switch st.Type {
	case unix.TMPFS_MAGIC:
		return "tmpfs"
	case unix.RAMFS_MAGIC:
		return "ramfs"
	}
	return ""
}
