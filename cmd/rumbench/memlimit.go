package main

import (
	"io"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"rumbench/internal/engine"
	"rumbench/internal/engineopt"
	"rumbench/internal/launch"
	"rumbench/internal/membudget"
	"rumbench/internal/model"
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
	// pod is set in a pod of a --kubernetes manifest, whose container
	// Kubernetes limits to --memory-limit.
	pod bool
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
	fl.BoolVar(&m.pod, podFlag, false, "internal: set by the --kubernetes manifest: Kubernetes limits this pod's container to --memory-limit, so no cgroup is made")
	hidden := []string{"child-engine", "child-cgroup", "child-data-dir", podFlag}
	if sweep {
		fl.StringVar(&m.childCell, "child-cell", "", "internal: the sweep cell the child runs")
		hidden = append(hidden, "child-cell")
	}
	for _, n := range hidden {
		fl.MarkHidden(n)
	}
}

// setupMemory resolves the memory flags (launch.SetupMemory); a refusal
// is one line (bad input). It marks an engine's child process.
func setupMemory(m *memFlags) (*launch.Memory, error) {
	ms, err := launch.SetupMemory(launch.MemoryRequest{
		Limit: m.limit, DropCaches: m.dropCaches, PerEngine: m.perEngine, Pod: m.pod,
		Child: launch.ChildArgs{Engine: m.childEngine, Cgroup: m.childCgroup, Cell: m.childCell, DataDir: m.childData},
	})
	if err != nil {
		return nil, err
	}
	childMode = ms.Child
	return ms, nil
}

// newIsolator runs engines in child processes of this invocation.
func newIsolator(ms *launch.Memory, stdout, stderr io.Writer) *launch.Isolator {
	return &launch.Isolator{Mem: ms, Invocation: invocation, Stdout: stdout, Stderr: childStderr(stderr), BadInputExit: exitBadInput}
}

// newCgroupExecCmd is the hidden `rumbench cgroup-exec CGROUP PROG ARGV0
// ARGS...`: join CGROUP, then become PROG.
func newCgroupExecCmd() *cobra.Command {
	return &cobra.Command{
		Use:                "cgroup-exec",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE:               func(cmd *cobra.Command, args []string) error { return launch.CgroupExec(args) },
	}
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
		if n, err := engineopt.ParseSize("memory-limit", m.limit); err == nil {
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
	// No flag default: it would contradict the runs a memory preset or
	// --memory-limit sizes; the text says which default applies when.
	fl.StringVar(v, "cache-size", "", "main cache of every engine, the same for all (docs/design.md \"One memory budget\"): the block cache of pebble and rocksdb, WiredTiger's cache, SQLite's page cache summed over its connections, a --managed server's shared_buffers, innodb_buffer_pool_size or rocksdb_block_cache_size; a server rumbench does not manage is only checked (a warning when it differs). Without it: the preset's (ibench --preset iobound: rows x clients x 70 B / 5), else what --memory-limit leaves, else "+model.DefaultCacheSize+". An --engine-opt or --server-opt for one engine's cache overrides it and is recorded. Each engine's effective cache is read back into run.json (engine.memory)")
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
			if _, given := engineopt.Scoped(opts).Given(e, k); !given {
				opts[engineopt.Join(e, k)] = strconv.FormatInt(mp.WriteBufferBytes, 10)
				set[engineopt.Join(e, k)] = mp.WriteBufferBytes
			}
			break
		}
		if co, ok := d.(model.CacheOption); ok {
			set[engineopt.Join(e, co.CacheOption())] = mp.CacheBytes
		}
		// The kv engines' index build sorts in memory of its own: as
		// much as the cache (SQLite's sorter lives in its page cache),
		// so the build stays inside the limit.
		if has["index_build_memory"] {
			if _, given := engineopt.Scoped(opts).Given(e, "index_build_memory"); !given {
				v := max(mp.CacheBytes, 64<<10)
				opts[engineopt.Join(e, "index_build_memory")] = strconv.FormatInt(v, 10)
				set[engineopt.Join(e, "index_build_memory")] = v
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
