package launch

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"rumbench/internal/engine"
	"rumbench/internal/engineopt"
	"rumbench/internal/memcg"
	"rumbench/internal/model"
	"rumbench/internal/results"
)

// MemoryRequest is what the memory flags asked for.
type MemoryRequest struct {
	// Limit is --memory-limit as given ("" for none).
	Limit string
	// DropCaches is --drop-caches.
	DropCaches bool
	// PerEngine are limits a preset sized per engine.
	PerEngine map[string]int64
	// Child is set in an engine's child process (the hidden --child-*
	// flags).
	Child ChildArgs
	// Pod is set in a pod of a --kubernetes manifest: Kubernetes limits
	// the container to Limit, so no cgroup is made here; run.json reads
	// the container's own cgroup.
	Pod bool
}

// ChildArgs make a process an engine's child: the engine it runs, the
// cgroup it joins first, the sweep cell it runs and the temporary data dir
// its parent made.
type ChildArgs struct {
	Engine, Cgroup, Cell, DataDir string
}

// Memory is what --memory-limit and --drop-caches resolved to.
type Memory struct {
	// Limit is the memory limit in bytes (0: none).
	Limit int64
	// PerEngine are limits a preset sized per engine.
	PerEngine map[string]int64
	// Ctl makes the cgroups of children and managed servers; nil when no
	// limit is enforced by this process.
	Ctl *memcg.Controller
	// Drop drops the kernel's caches before each step (nil: not asked).
	Drop func() error
	// Child is set in an engine's child process: its parent reports.
	Child bool

	child ChildArgs
	// statsCgroup is the cgroup whose usage run.json records ("" for none):
	// a child's own, or a pod's container cgroup.
	statsCgroup string
	// pod: the limit is the pod's container's, one for all its engines.
	pod bool
}

// SetupMemory checks --memory-limit and --drop-caches; a refusal is one
// line (bad input). In a child it joins its cgroup.
func SetupMemory(req MemoryRequest) (*Memory, error) {
	ms := &Memory{PerEngine: req.PerEngine}
	if req.Limit != "" {
		n, err := engineopt.ParseSize("memory-limit", req.Limit)
		if err != nil || (n != 0 && n < 16<<20) {
			return nil, fmt.Errorf("--memory-limit %q: want a size of at least 16MB, such as 256MB or 2GB (0: no limit)", req.Limit)
		}
		ms.Limit = n
	}
	if req.DropCaches {
		if err := memcg.CheckDropCaches(); err != nil {
			return nil, err
		}
		ms.Drop = memcg.DropCaches
	}
	c := req.Child
	if c.Engine != "" {
		ms.Child, ms.child, ms.statsCgroup = true, c, c.Cgroup
		if c.Cgroup != "" {
			// Before the engine opens: what it and its files use from here
			// on is charged to the cgroup.
			if err := memcg.Join(c.Cgroup); err != nil {
				return nil, err
			}
		}
		return ms, nil
	}
	if c.Cgroup != "" || c.Cell != "" || c.DataDir != "" {
		return nil, errors.New("--child-cgroup, --child-cell and --child-data-dir are internal: they go with --child-engine")
	}
	if req.Pod {
		ms.pod = true
		if ms.Limit > 0 {
			ms.statsCgroup = podCgroup()
		}
		return ms, nil
	}
	if ms.Limit > 0 {
		ctl, err := memcg.Detect()
		if err != nil {
			return nil, err
		}
		if err := ctl.Check(); err != nil {
			return nil, err
		}
		ms.Ctl = ctl
	}
	return ms, nil
}

// podCgroup is the memory cgroup of this pod's container: its own in a
// unified (v2) hierarchy, else the v1 memory hierarchy a container sees as
// its own; "" when there is none to read.
func podCgroup() string {
	if dir := ownCgroupV2(); dir != "" {
		return dir
	}
	if _, err := os.Stat("/sys/fs/cgroup/memory/memory.limit_in_bytes"); err == nil {
		return "/sys/fs/cgroup/memory"
	}
	return ""
}

// ownCgroupV2 is this process's cgroup directory in a unified (v2)
// hierarchy, "" when there is none to read.
func ownCgroupV2() string {
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if p, ok := strings.CutPrefix(sc.Text(), "0::"); ok {
			dir := filepath.Join("/sys/fs/cgroup", p)
			if _, err := os.Stat(filepath.Join(dir, "memory.max")); err == nil {
				return dir
			}
		}
	}
	return ""
}

// ChildStats returns the reader of the cgroup a child (or a pod) runs in,
// for run.json; nil when there is none.
func (ms *Memory) ChildStats() func() *results.MemoryCgroup {
	path := ms.statsCgroup
	if path == "" {
		return nil
	}
	version := 2
	if _, err := os.Stat(filepath.Join(path, "memory.limit_in_bytes")); err == nil {
		version = 1
	}
	limit := ms.LimitFor(ms.child.Engine)
	return func() *results.MemoryCgroup { return memcg.ReadStats(path, version, limit) }
}

// LimitFor is the memory limit of an engine's cgroup.
func (ms *Memory) LimitFor(eng string) int64 {
	if n, ok := ms.PerEngine[eng]; ok {
		return n
	}
	return ms.Limit
}

// Config is what run.json's config records about memory.
func (ms *Memory) Config() *results.MemoryConfig {
	if ms == nil {
		return nil
	}
	out := &results.MemoryConfig{}
	if ms.pod && ms.Limit > 0 {
		// The container holds every engine of the pod to one limit
		// (the largest a preset sized), whatever it sized per engine.
		out.LimitBytes = ms.Limit
		out.LimitScope = "the pod's container, for every engine it runs"
	} else if len(ms.PerEngine) > 0 {
		out.LimitBytes = ms.PerEngine
	} else if ms.Limit > 0 {
		out.LimitBytes = ms.Limit
	}
	out.DropCaches = ms.Drop != nil
	if out.LimitBytes == nil && !out.DropCaches {
		return nil
	}
	return out
}

// CheckLimitable refuses --memory-limit with a server engine it cannot
// limit: one rumbench does not start (--managed).
func CheckLimitable(engines []string, isManaged func(string) bool) error {
	for _, e := range engines {
		d, err := engine.Lookup(e)
		if err != nil || d.Kind() != model.Server || isManaged(e) {
			continue
		}
		return fmt.Errorf("--memory-limit cannot limit %s: it runs on a server rumbench did not start; add --managed=%s, or run %s without --memory-limit", e, e, e)
	}
	return nil
}

// PodMemory is the memory setup of a --kubernetes manifest's pods: the
// limit (--memory-limit, or the largest a preset sized) checked as a run
// checks it, but no cgroup made here and no cache dropped, since only a
// manifest is written and Kubernetes limits the pods.
func PodMemory(req MemoryRequest) (*Memory, error) {
	req.Pod, req.DropCaches = true, false
	return SetupMemory(req)
}
