package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"rumbench/internal/execute"
	"rumbench/internal/launch"
	"rumbench/internal/model"
)

// invocation is the command line rumbench was started with (after the
// --workload rewrite): an engine's child process is started with it.
var invocation []string

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
	// cacheSize is --cache-size.
	cacheSize string
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
// is one line (bad input); ms.Child marks an engine's child process.
func setupMemory(m *memFlags) (*launch.Memory, error) {
	ms, err := launch.SetupMemory(launch.MemoryRequest{
		Limit: m.limit, DropCaches: m.dropCaches, PerEngine: m.perEngine, Pod: m.pod,
		Child: launch.ChildArgs{Engine: m.childEngine, Cgroup: m.childCgroup, Cell: m.childCell, DataDir: m.childData},
	})
	if err != nil {
		return nil, err
	}
	return ms, nil
}

// newExecutor is the executor of this invocation's run or sweep: an
// engine's child's with --child-engine; history is --history (none: "").
func newExecutor(cmd *cobra.Command, m *memFlags, history string) *execute.Executor {
	var h execute.History
	if history != "" {
		h = &runHistory{target: history}
	}
	return execute.New(m.childEngine != "", invocation, cmd.OutOrStdout(), cmd.ErrOrStderr(), exitBadInput, h)
}

// runHistory is --history of run and sweep.
type runHistory struct{ target string }

func (h *runHistory) Check(ctx context.Context) error { return checkRunHistory(ctx, &h.target) }
func (h *runHistory) Record(dirs []string, runErr error, w io.Writer) error {
	return recordRunHistory(h.target, dirs, runErr, w)
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

// addCacheFlag adds --cache-size.
func addCacheFlag(fl *pflag.FlagSet, v *string) {
	// No flag default: it would contradict the runs a memory preset or
	// --memory-limit sizes; the text says which default applies when.
	fl.StringVar(v, "cache-size", "", "main cache of every engine, the same for all (docs/design.md \"One memory budget\"): the block cache of pebble and rocksdb, WiredTiger's cache, SQLite's page cache summed over its connections, a --managed server's shared_buffers, innodb_buffer_pool_size or rocksdb_block_cache_size; a server rumbench does not manage is only checked (a warning when it differs). Without it: the preset's (ibench --preset iobound: rows x clients x 70 B / 5), else what --memory-limit leaves, else "+model.DefaultCacheSize+". An --engine-opt or --server-opt for one engine's cache overrides it and is recorded. Each engine's effective cache is read back into run.json (engine.memory)")
}
