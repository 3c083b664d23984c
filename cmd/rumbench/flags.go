package main

// The flags run and sweep share (and crashtest's --cache-size): what they
// mean together is decided in internal/cli/runcli.

import (
	"time"

	"github.com/spf13/pflag"

	"rumbench/internal/cli/runcli"
	"rumbench/internal/launch/kube"
	"rumbench/internal/managed"
	"rumbench/internal/model"
	"rumbench/internal/shard"
	"rumbench/internal/version"
)

// addManagedFlags adds --managed, --server-opt and --install, and for run
// (not sweep) --keep-data.
func addManagedFlags(fl *pflag.FlagSet, m *managed.Request, sweep bool) {
	help := "start a private server for each server engine (postgres: initdb + postgres; innodb, myrocks: mariadb-install-db + mariadbd) on a free 127.0.0.1 port in its data dir, and remove it at the end; --managed alone for every selected server engine, --managed=postgres,innodb for some"
	if sweep {
		help = "start a private server for each variant of a server engine (postgres: initdb + postgres; innodb, myrocks: mariadb-install-db + mariadbd) on a free 127.0.0.1 port in a directory of its own, used by all the variant's cells in turn (each in its own database), and remove it at the end; --managed alone for every selected server engine, --managed=postgres,innodb for some"
	}
	fl.StringSliceVar(&m.Engines, "managed", nil, help)
	fl.Lookup("managed").NoOptDefVal = managed.All
	fl.StringArrayVar(&m.ServerOpts, "server-opt", nil, "managed server setting key=value, repeatable (shared_buffers=1GB, innodb_buffer_pool_size=1G, innodb_page_size=8k, rocksdb_block_cache_size=512M, ...): each goes to the managed servers that have it; engine.key=value for one engine; effective values are recorded in run.json")
	fl.StringArrayVar(&m.Installs, "install", nil, "installation a managed server runs, SCOPE=DIR, repeatable: SCOPE a variant's label or an engine (every variant of it), DIR a PostgreSQL bin directory or a MariaDB base directory; two variants from two installations run two versions or builds side by side (default: the system's)")
	if sweep {
		return
	}
	fl.BoolVar(&m.KeepData, "keep-data", false, "keep the managed servers' data dirs (needs --data-dir); by default they are removed at the end")
}

// addMemFlags adds --memory-limit, --cache-size, --drop-caches and the
// hidden flags that make a process an engine's child (and, for a sweep,
// of which cell) or a manifest's pod.
func addMemFlags(fl *pflag.FlagSet, m *runcli.Memory, sweep bool) {
	fl.StringVar(&m.Limit, "memory-limit", "", "run each embedded engine in a child process inside a memory cgroup of this size (256MB, 1GB; page cache included, so the OS cannot cache what the engine's cache does not) and each --managed server in one too; needs a writable cgroup memory controller (root). Peak usage and limit hits are recorded in run.json")
	addCacheFlag(fl, &m.CacheSize)
	fl.BoolVar(&m.DropCaches, "drop-caches", false, "before each step, sync and drop the kernel's page cache, dentries and inodes (echo 3 > /proc/sys/vm/drop_caches; root only); recorded in run.json and the steps")
	fl.StringVar(&m.Child.Engine, "child-engine", "", "internal: run only this engine, as the child of --memory-limit")
	fl.StringVar(&m.Child.Cgroup, "child-cgroup", "", "internal: the cgroup the child joins first")
	fl.StringVar(&m.Child.DataDir, "child-data-dir", "", "internal: the temporary data dir the parent made for the child (and removes)")
	fl.BoolVar(&m.Pod, kube.PodFlag, false, "internal: set by the --kubernetes manifest: Kubernetes limits this pod's container to --memory-limit, so no cgroup is made")
	hidden := []string{"child-engine", "child-cgroup", "child-data-dir", kube.PodFlag}
	if sweep {
		fl.StringVar(&m.Child.Cell, "child-cell", "", "internal: the sweep cell the child runs")
		hidden = append(hidden, "child-cell")
	}
	for _, n := range hidden {
		fl.MarkHidden(n)
	}
}

// addCacheFlag adds --cache-size.
func addCacheFlag(fl *pflag.FlagSet, v *string) {
	// No flag default: it would contradict the runs a memory preset or
	// --memory-limit sizes; the text says which default applies when.
	fl.StringVar(v, "cache-size", "", "main cache of every engine, the same for all (docs/design.md \"One memory budget\"): the block cache of pebble and rocksdb, WiredTiger's cache, SQLite's page cache summed over its connections, a --managed server's shared_buffers, innodb_buffer_pool_size or rocksdb_block_cache_size; a server rumbench does not manage is only checked (a warning when it differs). Without it: the preset's (ibench --preset iobound: rows x clients x 70 B / 5), else what --memory-limit leaves, else "+model.DefaultCacheSize+". An --engine-opt or --server-opt for one engine's cache overrides it and is recorded. Each engine's effective cache is read back into run.json (engine.memory)")
}

// addKubeFlags adds --kubernetes and its settings; what is "sweep" or
// "run".
func addKubeFlags(fl *pflag.FlagSet, k *kube.Flags, what string) {
	index, backoff := "cell", 2
	if what == "run" {
		// A shard retried alone cannot meet the others at a step's start.
		index, backoff = "shard", 0
	}
	fl.StringVar(&k.File, "kubernetes", "", "write a Kubernetes Job manifest (batch/v1, Indexed: one pod per "+index+") to this file instead of running; apply it with kubectl apply -f FILE (docs/scale-out.md)")
	fl.StringVar(&k.Image, "image", "rumbench:"+version.Version, "with --kubernetes: the container image, with rumbench on its PATH")
	fl.StringVar(&k.PVC, "pvc", "", "with --kubernetes: the ReadWriteMany PersistentVolumeClaim every pod writes its results to, mounted at --out (under "+kube.DefaultResults+" when --out is relative)")
	fl.StringVar(&k.JobName, "job-name", "rumbench-"+what, "with --kubernetes: the Job's name")
	fl.StringVar(&k.DSNSecret, "dsn-secret", "", "with --kubernetes: a Secret whose key \"dsn\" is the server address the pods use (instead of --dsn, whose password the manifest would show)")
	fl.BoolVar(&k.HostNetwork, "host-network", false, "with --kubernetes: run the pods in their node's network namespace (hostNetwork), to reach a server the pod network does not (one on the node's loopback, or on the nodes' network) and keep the pod network out of the measured round trips")
	fl.IntVar(&k.Backoff, "backoff-limit-per-index", backoff, "with --kubernetes: how many times Kubernetes retries the pod of one "+index)
	if what == "run" {
		fl.IntVar(&k.Shards, "shards", 1, "with --kubernetes: the number of shards, each a pod running --shard i/N (all run at once); 1: one pod running the run as it is")
	} else {
		fl.IntVar(&k.Parallelism, "parallelism", 1, "with --kubernetes: how many cells run at once (pods are spread over nodes when there are enough)")
	}
}

// addShardFlags adds --shard and its companions: this process as one
// shard of a run whose clients several processes (hosts, pods) share.
func addShardFlags(fl *pflag.FlagSet, s *runcli.Shard) {
	fl.StringVar(&s.Spec, "shard", "", "run shard INDEX/COUNT of the clients against one server (2/3; /3 takes INDEX from $"+shard.EnvIndex+"): shard i runs the tables i, i+N, ... with their clients (with one table per client, clients i, i+N, ...), every step starts on all shards at one time agreed through a table on the server, steps on all tables (l.x, maint, scan) run on shard 0; \"rumbench merge\" makes one bundle of the shards'")
	fl.DurationVar(&s.Timeout, "shard-timeout", time.Minute, "with --shard: end the step when another shard has not been heard from for this long (it died or lost the server), naming it; results so far are kept")
	fl.StringVar(&s.RunID, "shard-run", "", "with --shard: the id the shards of one run share in the barrier table (default: a hash of the run's flags other than --shard, --shard-timeout, --out, --data-dir and --dsn, so shards given the same arguments agree)")
}

func addRepeatFlag(fs *pflag.FlagSet, n *int) {
	fs.IntVar(n, "repeat", 1, "run each engine (each cell of a sweep) this many times from scratch, interleaved (A B A B ...), into <out>/rep-1, rep-2, ...; reports give medians with 95% intervals and test differences (Mann–Whitney U); at least 4 to ever show a significant difference, 6 for a finite interval")
}

// addCooldownFlag adds --cooldown (run, sweep).
func addCooldownFlag(fs *pflag.FlagSet, d *time.Duration) {
	fs.DurationVar(d, "cooldown", 0, "pause this long between two runs (engines, repetitions, sweep cells), so one run's hot device and CPU do not start the next; recorded in run.json's config (cooldown_s)")
}
