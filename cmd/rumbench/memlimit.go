package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"rumbench/internal/engine"
	"rumbench/internal/engine/kv"
	"rumbench/internal/managed"
	"rumbench/internal/membudget"
	"rumbench/internal/memcg"
	"rumbench/internal/model"
	"rumbench/internal/results"
	"rumbench/internal/runner"
	"rumbench/internal/workload"
)

// invocation is the command line rumbench was started with (after the
// --workload rewrite): an engine's child process is started with it.
var invocation []string

// childMode is set in an engine's child process: the parent reports.
var childMode bool

// memFlags are --memory-limit, --drop-caches and the hidden flags that make
// a process an engine's child.
type memFlags struct {
	limit       string
	dropCaches  bool
	childEngine string
	childCgroup string
	childCell   string
	childData   string
	// perEngine are limits a preset sized per engine (--memory-limit not
	// given).
	perEngine map[string]int64
	// cacheSize is --cache-size; budget is what it resolved to
	// (chooseBudget).
	cacheSize string
	budget    *membudget.Budget
}

func addMemFlags(fl *pflag.FlagSet, m *memFlags, sweep bool) {
	fl.StringVar(&m.limit, "memory-limit", "", "run each embedded engine in a child process inside a memory cgroup of this size (256MB, 1GB; page cache included, so the OS cannot cache what the engine's cache does not) and each --managed server in one too; needs a writable cgroup memory controller (root). Peak usage and limit hits are recorded in run.json")
	addCacheFlag(fl, &m.cacheSize)
	fl.BoolVar(&m.dropCaches, "drop-caches", false, "before each step, sync and drop the kernel's page cache, dentries and inodes (echo 3 > /proc/sys/vm/drop_caches; root only); recorded in run.json and the steps")
	fl.StringVar(&m.childEngine, "child-engine", "", "internal: run only this engine, as the child of --memory-limit")
	fl.StringVar(&m.childCgroup, "child-cgroup", "", "internal: the cgroup the child joins first")
	fl.StringVar(&m.childData, "child-data-dir", "", "internal: the temporary data dir the parent made for the child (and removes)")
	hidden := []string{"child-engine", "child-cgroup", "child-data-dir"}
	if sweep {
		fl.StringVar(&m.childCell, "child-cell", "", "internal: the sweep cell the child runs")
		hidden = append(hidden, "child-cell")
	}
	for _, n := range hidden {
		fl.MarkHidden(n)
	}
}

// memSetup is what --memory-limit and --drop-caches resolved to.
type memSetup struct {
	limit     int64
	perEngine map[string]int64
	ctl       *memcg.Controller
	drop      func() error
}

// setupMemory checks --memory-limit and --drop-caches; a refusal is one line
// (bad input). In a child it joins its cgroup.
func setupMemory(m *memFlags) (*memSetup, error) {
	ms := &memSetup{}
	if m.limit != "" {
		n, err := kv.ParseSize("memory-limit", m.limit)
		if err != nil || (n != 0 && n < 16<<20) {
			return nil, fmt.Errorf("--memory-limit %q: want a size of at least 16MB, such as 256MB or 2GB (0: no limit)", m.limit)
		}
		ms.limit = n
	}
	ms.perEngine = m.perEngine
	if m.dropCaches {
		if err := memcg.CheckDropCaches(); err != nil {
			return nil, err
		}
		ms.drop = memcg.DropCaches
	}
	if m.childEngine != "" {
		childMode = true
		if m.childCgroup != "" {
			// Before the engine opens: what it and its files use from here
			// on is charged to the cgroup.
			if err := memcg.Join(m.childCgroup); err != nil {
				return nil, err
			}
		}
		return ms, nil
	}
	if m.childCgroup != "" || m.childCell != "" || m.childData != "" {
		return nil, errors.New("--child-cgroup, --child-cell and --child-data-dir are internal: they go with --child-engine")
	}
	if ms.limit > 0 {
		ctl, err := memcg.Detect()
		if err != nil {
			return nil, err
		}
		if err := ctl.Check(); err != nil {
			return nil, err
		}
		ms.ctl = ctl
	}
	return ms, nil
}

// childStats returns, in a child, the reader of its cgroup for run.json.
func (ms *memSetup) childStats(m *memFlags) func() *results.MemoryCgroup {
	if m.childCgroup == "" {
		return nil
	}
	version := 2
	if _, err := os.Stat(filepath.Join(m.childCgroup, "memory.limit_in_bytes")); err == nil {
		version = 1
	}
	limit := ms.limitFor(m.childEngine)
	return func() *results.MemoryCgroup { return memcg.ReadStats(m.childCgroup, version, limit) }
}

// limitFor is the memory limit of an engine's cgroup.
func (ms *memSetup) limitFor(eng string) int64 {
	if n, ok := ms.perEngine[eng]; ok {
		return n
	}
	return ms.limit
}

// checkLimitable refuses --memory-limit with a server engine it cannot
// limit: one rumbench does not start (--managed).
func checkLimitable(engines []string, isManaged func(string) bool) error {
	for _, e := range engines {
		d, err := engine.Lookup(e)
		if err != nil || d.Kind() != model.Server || isManaged(e) {
			continue
		}
		return fmt.Errorf("--memory-limit cannot limit %s: it runs on a server rumbench did not start; add --managed=%s, or run %s without --memory-limit", e, e, e)
	}
	return nil
}

// isolator runs an embedded engine in a child process (the same binary)
// inside a fresh memory cgroup, relays its output, forwards Ctrl-C, records
// what the cgroup used in the child's run.json and removes the cgroup.
type isolator struct {
	ms             *memSetup
	stdout, stderr io.Writer
}

// run runs the child with the invocation plus extra arguments; bundle is the
// directory the child writes (Out/<engine>), dataDir the engine's data dir
// ("" for a temporary one).
func (iso *isolator) run(ctx context.Context, eng, bundle, dataDir string, extra ...string) (bool, error) {
	if d, err := engine.Lookup(eng); err == nil && d.Kind() == model.Server {
		return false, nil // a managed server gets its own cgroup
	}
	exe, err := os.Executable()
	if err != nil {
		return true, fmt.Errorf("find rumbench's own binary for the engine's child process: %w", err)
	}
	g, err := iso.ms.ctl.New(eng, iso.ms.limitFor(eng))
	if err != nil {
		return true, err
	}
	defer func() {
		if rerr := g.Remove(); rerr != nil {
			fmt.Fprintf(iso.stderr, "rumbench: %v\n", rerr)
		}
	}()
	args := append(append([]string(nil), invocation...), "--child-engine", eng, "--child-cgroup", g.Path)
	args = append(args, extra...)
	if dataDir == "" {
		// The parent owns a temporary data dir, so it is removed even when
		// the child is killed (by the OOM killer, say).
		tmp, err := os.MkdirTemp("", "rumbench-"+eng+"-")
		if err != nil {
			return true, fmt.Errorf("create temporary data dir: %w", err)
		}
		defer os.RemoveAll(tmp)
		args = append(args, "--child-data-dir", tmp)
	}
	cmd := exec.Command(exe, args...)
	cmd.Stdout, cmd.Stderr = iso.stdout, iso.stderr
	// Its own process group: a terminal's Ctrl-C reaches the parent only,
	// which forwards exactly one interrupt (a second one would kill the
	// child before it saved its results). It dies with the parent.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return true, fmt.Errorf("start the child process of %s: %w", eng, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-done:
	case <-ctx.Done():
		cmd.Process.Signal(os.Interrupt)
		werr = <-done
	}
	if _, err := os.Stat(filepath.Join(bundle, results.RunFile)); err == nil {
		if err := results.SetMemoryLimit(bundle, g.Stats()); err != nil {
			fmt.Fprintf(iso.stderr, "rumbench: record the cgroup's usage: %v\n", err)
		}
	}
	if werr == nil {
		return true, nil
	}
	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		switch code := ee.ExitCode(); {
		case ctx.Err() != nil:
			return true, ctx.Err()
		case code == exitBadInput:
			return true, &runner.BadInputError{Err: fmt.Errorf("engine %s: its child process refused the input (its error is above)", eng)}
		case code == -1:
			st := g.Stats()
			if st.OOMKills != nil && *st.OOMKills > 0 {
				return true, fmt.Errorf("engine %s was killed by the OOM killer: its memory outgrew --memory-limit %s (peak %s); give a larger limit or a smaller engine cache", eng, fmtBytes(g.Limit), fmtPeak(st))
			}
			return true, fmt.Errorf("engine %s: its child process was killed (%v)", eng, werr)
		default:
			return true, fmt.Errorf("engine %s: its child process failed with exit code %d (its error is above)", eng, code)
		}
	}
	return true, fmt.Errorf("engine %s: child process: %w", eng, werr)
}

func fmtBytes(n int64) string { return fmt.Sprintf("%.0fMB", float64(n)/(1<<20)) }

func fmtPeak(m *results.MemoryCgroup) string {
	if m.PeakBytes == nil {
		return "unknown"
	}
	return fmtBytes(*m.PeakBytes)
}

// serverCgroup puts a managed server in a fresh memory cgroup: returned are
// the BeforeStart hook, the reader of its usage and the cleanup.
func (ms *memSetup) serverCgroup(eng string) (func(*exec.Cmd) error, func() *results.MemoryCgroup, func() error, error) {
	g, err := ms.ctl.New(eng, ms.limitFor(eng))
	if err != nil {
		return nil, nil, nil, err
	}
	var dirFD = -1
	before := func(cmd *exec.Cmd) error {
		if g.Version() == 2 {
			// Born in the cgroup, with its whole tree.
			fd, err := syscall.Open(g.Path, syscall.O_RDONLY|syscall.O_DIRECTORY, 0)
			if err != nil {
				return fmt.Errorf("open cgroup %s: %w", g.Path, err)
			}
			dirFD = fd
			cmd.SysProcAttr.UseCgroupFD = true
			cmd.SysProcAttr.CgroupFD = fd
			return nil
		}
		// v1 cannot start a process in a cgroup: rumbench's cgroup-exec
		// joins it and then execs the server (same pid).
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		if c := cmd.SysProcAttr.Credential; c != nil {
			// The server runs as an unprivileged user, who moves itself.
			if err := os.Chown(g.ProcsFile(), int(c.Uid), int(c.Gid)); err != nil {
				return fmt.Errorf("let the server's user join cgroup %s: %w", g.Path, err)
			}
		}
		cmd.Args = append([]string{exe, "cgroup-exec", g.Path, cmd.Path}, cmd.Args...)
		cmd.Path = exe
		return nil
	}
	cleanup := func() error {
		if dirFD >= 0 {
			syscall.Close(dirFD)
		}
		return g.Remove()
	}
	return before, g.Stats, cleanup, nil
}

// newCgroupExecCmd is the hidden `rumbench cgroup-exec CGROUP PROG ARGV0
// ARGS...`: join CGROUP, then become PROG.
func newCgroupExecCmd() *cobra.Command {
	return &cobra.Command{
		Use:                "cgroup-exec",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) < 3 {
				return &runner.BadInputError{Err: errors.New("cgroup-exec CGROUP PROGRAM ARGV0 [ARGS...]")}
			}
			if err := memcg.Join(args[0]); err != nil {
				return err
			}
			return syscall.Exec(args[1], args[2:], os.Environ())
		},
	}
}

// managedMemory wraps a server starter so each managed server runs in its
// own memory cgroup, removed when the server stops.
func managedMemory(ms *memSetup, start func(ctx context.Context, name, dataDir string, before func(*exec.Cmd) error) (*runner.Server, error)) runner.ServerStarter {
	return func(ctx context.Context, name, dataDir string) (*runner.Server, error) {
		if ms == nil || ms.ctl == nil || !managed.IsManageable(name) {
			return start(ctx, name, dataDir, nil)
		}
		before, stats, cleanup, err := ms.serverCgroup(name)
		if err != nil {
			return nil, err
		}
		srv, err := start(ctx, name, dataDir, before)
		if err != nil || srv == nil {
			cleanup()
			return srv, err
		}
		stop := srv.Stop
		srv.Stop = func() error {
			err := stop()
			if cerr := cleanup(); err == nil {
				err = cerr
			}
			return err
		}
		srv.MemoryCgroup = stats
		return srv, nil
	}
}

// memConfig is what run.json's config records about memory.
func (ms *memSetup) config() map[string]any {
	if ms == nil {
		return nil
	}
	out := map[string]any{}
	if len(ms.perEngine) > 0 {
		out["memory_limit_bytes"] = ms.perEngine
	} else if ms.limit > 0 {
		out["memory_limit_bytes"] = ms.limit
	}
	if ms.drop != nil {
		out["drop_caches"] = true
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// writeBufferKeys are the engine settings a memory preset sizes beside the
// cache (which the run's budget sets), in order of preference.
var writeBufferKeys = []string{"write_buffer_size", "memtable_size"}

// chooseBudget picks the run's one cache size (--cache-size, else the
// preset's, else what --memory-limit leaves, else the default) and sets
// every embedded engine's cache option to it, unless an --engine-opt set
// that engine's cache.
func chooseBudget(fl *pflag.FlagSet, m *memFlags, size string, mp *workload.MemoryPreset, preset string, engines []string, opts map[string]string) (*membudget.Budget, error) {
	c := membudget.Choice{Flag: size, Given: fl.Changed("cache-size"), PresetName: preset, ProcessBytes: membudget.ProcessBytes}
	if mp != nil {
		c.PresetCache = mp.CacheBytes
	}
	if m.limit != "" {
		if n, err := kv.ParseSize("memory-limit", m.limit); err == nil {
			c.Limit, c.LimitText = n, m.limit
		}
	}
	b, err := membudget.Choose(c)
	if err != nil {
		return nil, err
	}
	if mp != nil {
		// The preset's memory limits hold the cache the run gives.
		mp.CacheBytes = b.Bytes
	}
	b.ApplyEngineOpts(engines, opts)
	return b, nil
}

// addCacheFlag adds --cache-size.
func addCacheFlag(fl *pflag.FlagSet, v *string) {
	fl.StringVar(v, "cache-size", model.DefaultCacheSize, "main cache of every engine, the same for all (docs/design.md \"One memory budget\"): the block cache of pebble and rocksdb, WiredTiger's cache, SQLite's page cache summed over its connections, a --managed server's shared_buffers, innodb_buffer_pool_size or rocksdb_block_cache_size; a server rumbench does not manage is only checked (a warning when it differs). Without it, --memory-limit or a memory preset sizes it. An --engine-opt or --server-opt for one engine's cache overrides it and is recorded. Each engine's effective cache is read back into run.json (engine.memory)")
}

// budgetConfig is what run.json's config records about the budget.
func budgetConfig(b *membudget.Budget) map[string]any {
	out := map[string]any{"bytes": b.Bytes, "from": b.From}
	if len(b.Overrides) > 0 {
		out["overrides"] = b.Overrides
	}
	return out
}

// applyMemoryPreset sizes each engine's write buffers from a preset
// (engine.key settings, unless that key was given) and each engine's memory
// limit (unless --memory-limit was given). It returns what it set, for
// run.json. The cache is the run's budget (chooseBudget).
func applyMemoryPreset(mp *workload.MemoryPreset, engines []string, opts map[string]string, mem *memFlags, limitGiven bool) map[string]any {
	if mp == nil {
		return nil
	}
	set := map[string]any{}
	var most int64
	for _, e := range engines {
		d, err := engine.Lookup(e)
		if err != nil {
			continue
		}
		has := map[string]bool{}
		for _, o := range d.Options() {
			has[o.Key] = true
		}
		wb := false
		for _, k := range writeBufferKeys {
			if !has[k] {
				continue
			}
			wb = true
			if _, given := opts[k]; !given {
				if _, given := opts[e+"."+k]; !given {
					opts[e+"."+k] = strconv.FormatInt(mp.WriteBufferBytes, 10)
					set[e+"."+k] = mp.WriteBufferBytes
				}
			}
			break
		}
		if co, ok := d.(model.CacheOption); ok {
			set[e+"."+co.CacheOption()] = mp.CacheBytes
		}
		// The kv engines' index build sorts in memory of its own: as
		// much as the cache (SQLite's sorter lives in its page cache),
		// so the build stays inside the limit.
		if has["index_build_memory"] {
			_, given := opts["index_build_memory"]
			if _, scoped := opts[e+".index_build_memory"]; !given && !scoped {
				v := max(mp.CacheBytes, 64<<10)
				opts[e+".index_build_memory"] = strconv.FormatInt(v, 10)
				set[e+".index_build_memory"] = v
			}
		}
		if !limitGiven && d.Kind() == model.Embedded {
			if mem.perEngine == nil {
				mem.perEngine = map[string]int64{}
			}
			var own int64
			if o, ok := d.(model.OwnMemory); ok {
				own = o.OwnMemoryBytes()
			}
			n := mp.LimitFor(wb, own)
			mem.perEngine[e] = n
			set[e+".memory_limit"] = n
			most = max(most, n)
		}
	}
	if !limitGiven && most > 0 {
		mem.limit = strconv.FormatInt(most, 10)
	}
	return set
}
