// Package memcg puts processes in a memory cgroup (v1 or v2) so that an
// engine's process, page cache included, cannot use more memory than a limit,
// and reads back what the cgroup used. It also drops the kernel's caches
// (--drop-caches).
package memcg

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"rumbench/internal/results"
)

// RootEnv, when set, names the directory new cgroups are created in instead
// of the one detected: tests point it at a directory without a memory
// controller, or one that is not writable, to see the refusal.
const RootEnv = "RUMBENCH_CGROUP_ROOT"

// Controller is where new memory cgroups are created.
type Controller struct {
	// Version is 1 (the v1 memory hierarchy) or 2 (the unified hierarchy).
	Version int
	// Parent is the directory new cgroups are created in.
	Parent string
}

// RefusedError says why memory cgroups cannot be used here; it is the
// user's to fix (exit 2).
type RefusedError struct{ Reason string }

func (e *RefusedError) Error() string { return "--memory-limit: " + e.Reason }

const (
	v1Mount = "/sys/fs/cgroup/memory"
	v2Mount = "/sys/fs/cgroup"
)

// Detect finds the memory controller. With v1 new cgroups go under the
// process's own memory cgroup (so a limit set on it still applies); with v2
// under the root of the unified hierarchy, since a v2 cgroup that holds
// processes cannot enable controllers for its children.
func Detect() (*Controller, error) {
	if dir := os.Getenv(RootEnv); dir != "" {
		return detectIn(dir)
	}
	if fileExists(filepath.Join(v1Mount, "memory.limit_in_bytes")) {
		parent := v1Mount
		if p, ok := ownCgroup("memory"); ok && fileExists(filepath.Join(v1Mount, p, "memory.limit_in_bytes")) {
			parent = filepath.Join(v1Mount, p)
		}
		return &Controller{Version: 1, Parent: parent}, nil
	}
	if fileExists(filepath.Join(v2Mount, "cgroup.controllers")) {
		return detectIn(v2Mount)
	}
	return nil, &RefusedError{Reason: "this machine has no cgroup memory controller (neither /sys/fs/cgroup/memory nor a unified /sys/fs/cgroup with memory): run without --memory-limit"}
}

// detectIn reads which hierarchy dir belongs to.
func detectIn(dir string) (*Controller, error) {
	if fileExists(filepath.Join(dir, "memory.limit_in_bytes")) {
		return &Controller{Version: 1, Parent: dir}, nil
	}
	if b, err := os.ReadFile(filepath.Join(dir, "cgroup.controllers")); err == nil {
		if !hasWord(string(b), "memory") {
			return nil, &RefusedError{Reason: fmt.Sprintf("the cgroup v2 hierarchy at %s does not offer the memory controller (cgroup.controllers: %q): enable it or run without --memory-limit", dir, strings.TrimSpace(string(b)))}
		}
		if sc, err := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control")); err == nil && !hasWord(string(sc), "memory") {
			// Children of dir get the controller only once it is enabled
			// here; writing it is what systemd does for its slices.
			if err := os.WriteFile(filepath.Join(dir, "cgroup.subtree_control"), []byte("+memory"), 0o644); err != nil {
				return nil, &RefusedError{Reason: fmt.Sprintf("cannot enable the memory controller in %s/cgroup.subtree_control: %v (run as root)", dir, errors.Unwrap(err))}
			}
		}
		return &Controller{Version: 2, Parent: dir}, nil
	}
	return nil, &RefusedError{Reason: fmt.Sprintf("%s is not a cgroup directory with a memory controller: run without --memory-limit", dir)}
}

// ownCgroup returns this process's cgroup path in the v1 hierarchy of the
// named controller.
func ownCgroup(controller string) (string, bool) {
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) == 3 && hasWordSep(parts[1], controller, ",") {
			return parts[2], true
		}
	}
	return "", false
}

var seq atomic.Int64

// Check creates and removes a probe cgroup: it refuses, in one line, when
// cgroups cannot be created here.
func (c *Controller) Check() error {
	g, err := c.New("check", 64<<20)
	if err != nil {
		return err
	}
	return g.Remove()
}

// Group is one memory cgroup.
type Group struct {
	ctl   *Controller
	Path  string
	Limit int64
}

// New creates a cgroup limited to limit bytes (page cache included).
func (c *Controller) New(name string, limit int64) (*Group, error) {
	dir := filepath.Join(c.Parent, fmt.Sprintf("rumbench-%d-%s-%d", os.Getpid(), name, seq.Add(1)))
	if err := os.Mkdir(dir, 0o755); err != nil {
		if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
			who := ""
			if os.Geteuid() != 0 {
				who = "run as root, or "
			}
			return nil, &RefusedError{Reason: fmt.Sprintf("cannot create a cgroup in %s (%v): %sgive a writable memory cgroup, or run without --memory-limit", c.Parent, errors.Unwrap(err), who)}
		}
		return nil, fmt.Errorf("create cgroup %s: %w", dir, err)
	}
	g := &Group{ctl: c, Path: dir, Limit: limit}
	lim := strconv.FormatInt(limit, 10)
	var err error
	if c.Version == 1 {
		err = g.write("memory.limit_in_bytes", lim)
		if err == nil && fileExists(filepath.Join(dir, "memory.memsw.limit_in_bytes")) {
			// With swap the limit would only move pages to swap.
			err = g.write("memory.memsw.limit_in_bytes", lim)
		}
	} else {
		err = g.write("memory.max", lim)
		if err == nil && fileExists(filepath.Join(dir, "memory.swap.max")) {
			err = g.write("memory.swap.max", "0")
		}
	}
	if err != nil {
		os.Remove(dir)
		return nil, fmt.Errorf("set the memory limit of cgroup %s: %w", dir, err)
	}
	return g, nil
}

func (g *Group) write(file, val string) error {
	return os.WriteFile(filepath.Join(g.Path, file), []byte(val), 0o644)
}

// ProcsFile is the file a process writes its pid to to join the group.
func (g *Group) ProcsFile() string { return filepath.Join(g.Path, "cgroup.procs") }

// Version is the cgroup version of the group.
func (g *Group) Version() int { return g.ctl.Version }

// Join moves the calling process (all its threads) into the cgroup at path.
// Memory it used before stays charged where it was.
func Join(path string) error {
	if err := os.WriteFile(filepath.Join(path, "cgroup.procs"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return fmt.Errorf("join cgroup %s: %w", path, err)
	}
	return nil
}

// Stats reads what the group used so far.
func (g *Group) Stats() *results.MemoryCgroup {
	return ReadStats(g.Path, g.ctl.Version, g.Limit)
}

// ReadStats reads the memory cgroup at path (version 1 or 2).
func ReadStats(path string, version int, limit int64) *results.MemoryCgroup {
	m := &results.MemoryCgroup{LimitBytes: limit, Path: path, Version: version}
	if version == 1 {
		m.PeakBytes = readInt(filepath.Join(path, "memory.max_usage_in_bytes"))
		m.Failcnt = readInt(filepath.Join(path, "memory.failcnt"))
		// With memsw limited to the same size, its counter is the one that
		// counts the limit hits.
		if sw := readInt(filepath.Join(path, "memory.memsw.failcnt")); sw != nil && (m.Failcnt == nil || *sw > *m.Failcnt) {
			m.Failcnt = sw
		}
		kv := readKV(filepath.Join(path, "memory.oom_control"))
		if v, ok := kv["oom_kill"]; ok {
			m.OOMKills = &v
		}
		st := readKV(filepath.Join(path, "memory.stat"))
		if v, ok := st["cache"]; ok {
			m.CacheBytes = &v
		}
		if v, ok := st["rss"]; ok {
			m.AnonBytes = &v
		}
		return m
	}
	m.PeakBytes = readInt(filepath.Join(path, "memory.peak"))
	ev := readKV(filepath.Join(path, "memory.events"))
	if v, ok := ev["max"]; ok {
		m.Failcnt = &v
	}
	if v, ok := ev["oom"]; ok {
		m.OOMEvents = &v
	}
	if v, ok := ev["oom_kill"]; ok {
		m.OOMKills = &v
	}
	st := readKV(filepath.Join(path, "memory.stat"))
	if v, ok := st["file"]; ok {
		m.CacheBytes = &v
	}
	if v, ok := st["anon"]; ok {
		m.AnonBytes = &v
	}
	return m
}

// Remove deletes the cgroup once its processes are gone (their exit takes a
// moment to be seen).
func (g *Group) Remove() error {
	var err error
	for i := 0; i < 50; i++ {
		if err = os.Remove(g.Path); err == nil || errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if !errors.Is(err, syscall.EBUSY) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("remove cgroup %s: %w", g.Path, err)
}

func readInt(path string) *int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return nil
	}
	return &v
}

// readKV reads "key value" lines.
func readKV(path string) map[string]int64 {
	out := map[string]int64{}
	b, err := os.ReadFile(path)
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		if v, err := strconv.ParseInt(f[1], 10, 64); err == nil {
			out[f[0]] = v
		}
	}
	return out
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func hasWord(s, w string) bool { return hasWordSep(s, w, "") }

func hasWordSep(s, w, sep string) bool {
	var fields []string
	if sep == "" {
		fields = strings.Fields(s)
	} else {
		fields = strings.Split(s, sep)
	}
	for _, f := range fields {
		if f == w {
			return true
		}
	}
	return false
}

// DropCaches writes back dirty pages and drops the page cache, dentries and
// inodes (echo 3 > /proc/sys/vm/drop_caches). Only root may.
func DropCaches() error {
	syscall.Sync()
	if err := os.WriteFile("/proc/sys/vm/drop_caches", []byte("3"), 0o644); err != nil {
		return fmt.Errorf("drop the kernel's caches: %w", err)
	}
	return nil
}

// CheckDropCaches refuses --drop-caches in one line when this process may
// not drop the caches.
func CheckDropCaches() error {
	if os.Geteuid() != 0 {
		return errors.New("--drop-caches writes /proc/sys/vm/drop_caches, which only root may: run as root or without --drop-caches")
	}
	f, err := os.OpenFile("/proc/sys/vm/drop_caches", os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("--drop-caches: cannot open /proc/sys/vm/drop_caches for writing (%v): run without --drop-caches", errors.Unwrap(err))
	}
	f.Close()
	return nil
}
