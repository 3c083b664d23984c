package kube

import (
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/spf13/pflag"

	"rumbench/internal/launch"
	"rumbench/internal/runner"
)

// PodFlag marks a process started by a --kubernetes manifest.
const PodFlag = "kubernetes-pod"

// Flags are --kubernetes and the settings of the Job it writes, as the
// command's flags give them.
type Flags struct {
	File, Image, PVC, JobName, DSNSecret string
	Parallelism, Backoff                 int
	HostNetwork                          bool
	// Shards is run's number of shards (indexes of the Job).
	Shards int
}

// FlagNames are the flags that shape the manifest, not the pods' run;
// the first is --kubernetes itself.
var FlagNames = []string{"kubernetes", "image", "pvc", "job-name", "parallelism", "backoff-limit-per-index", "shards", "dsn-secret", "host-network"}

// Check refuses the manifest's flags given without --kubernetes.
func (k *Flags) Check(fs *pflag.FlagSet) error {
	if k.File != "" {
		return nil
	}
	for _, n := range FlagNames[1:] {
		if f := fs.Lookup(n); f != nil && f.Changed {
			return &runner.BadInputError{Err: fmt.Errorf("--%s shapes the Kubernetes Job: add --kubernetes FILE (or leave --%s out)", n, n)}
		}
	}
	return nil
}

// podArgs is the command line of a pod: the command (path, as Cobra
// names it, "rumbench sweep") and the flags of fs given, without the
// manifest's own flags and those in skip, then extra. With --dsn-secret
// the pods' --dsn comes from the Secret.
func (k *Flags) podArgs(cmdPath string, fs *pflag.FlagSet, skip []string, extra ...string) []string {
	drop := map[string]bool{"config": true, PodFlag: true}
	if k.DSNSecret != "" {
		drop["dsn"] = true
		extra = append([]string{"--dsn=$(" + DSNEnv + ")"}, extra...)
	}
	for _, n := range append(append([]string(nil), FlagNames...), skip...) {
		drop[n] = true
	}
	args := strings.Fields(cmdPath)[1:]
	args = append(args, launch.FlagArgs(fs, func(name string) bool {
		return drop[name] || strings.HasPrefix(name, "child-")
	})...)
	return append(append(args, extra...), "--"+PodFlag)
}

// write writes the manifest to --kubernetes and says how to start it and
// read it.
func (k *Flags) write(j *Job, fs *pflag.FlagSet, w io.Writer, next string) error {
	if err := j.Check(); err != nil {
		return &runner.BadInputError{Err: err}
	}
	if dsn, _ := fs.GetString("dsn"); j.DSNSecret == "" && DSNHasPassword(dsn) {
		return &runner.BadInputError{Err: errors.New("--dsn holds a password, which the manifest would carry in plain text: put the DSN in a Secret (key \"dsn\") and give --dsn-secret NAME instead")}
	}
	if err := j.WriteFile(k.File); err != nil {
		return err
	}
	j.Describe(w, k.File, next)
	return nil
}

// WriteSweepJob writes the Indexed Job whose pod i runs cell i of the
// sweep (--cell $(JOB_COMPLETION_INDEX)) into the shared volume.
func (k *Flags) WriteSweepJob(cmdPath string, fs *pflag.FlagSet, w io.Writer, out string, cells int, memory int64) error {
	mount := MountPath(out)
	j := &Job{
		Name: k.JobName, Component: "sweep", Image: k.Image,
		Args:        k.podArgs(cmdPath, fs, []string{"out", "cell", "compare-to"}, "--out="+mount, "--cell="+IndexArg),
		Completions: cells, Parallelism: k.Parallelism, BackoffLimitPerIndex: k.Backoff,
		PVC: k.PVC, MountPath: mount, MemoryBytes: memory, DSNSecret: k.DSNSecret,
		HostNetwork: k.HostNetwork,
	}
	if j.Parallelism > cells {
		j.Parallelism = cells // more pods would have no cell to run
	}
	return k.write(j, fs, w, "then, with the volume mounted:  rumbench sweep collect "+mount)
}

// WriteRunJob writes the Indexed Job of a run: with --shards N > 1, N pods
// at once, pod i running the same run with --shard i/N into <out>/shard-i
// (its variants' bundles in <out>/shard-i/<label>); with 1, one pod running
// the run as it is into <out>. checkShards refuses what the shards cannot
// run (asked only when there are several).
func (k *Flags) WriteRunJob(cmdPath string, fs *pflag.FlagSet, w io.Writer, out string, mem launch.MemoryRequest, checkShards func() error) error {
	if k.Shards < 1 {
		return &runner.BadInputError{Err: fmt.Errorf("--shards must be at least 1, got %d", k.Shards)}
	}
	ms, err := launch.PodMemory(mem)
	if err != nil {
		return &runner.BadInputError{Err: err}
	}
	if out == "" {
		out = "."
	}
	mount := MountPath(out)
	j := &Job{
		Name: k.JobName, Component: "run", Image: k.Image,
		Completions: k.Shards, Parallelism: k.Shards, BackoffLimitPerIndex: k.Backoff,
		PVC: k.PVC, MountPath: mount, MemoryBytes: ms.Limit, DSNSecret: k.DSNSecret,
		HostNetwork: k.HostNetwork,
	}
	if k.Shards == 1 {
		j.Args = k.podArgs(cmdPath, fs, []string{"out"}, "--out="+mount)
		return k.write(j, fs, w, fmt.Sprintf("the run writes %s", mount))
	}
	// The pods run what --shard accepts, and no --memory-limit of their
	// own (the container's limit holds them). Each pod runs every
	// variant, one after another as a run does, as its shard.
	if err := checkShards(); err != nil {
		return err
	}
	extra := []string{"--out=" + path.Join(mount, "shard-"+IndexArg), fmt.Sprintf("--shard=%s/%d", IndexArg, k.Shards)}
	if !fs.Changed("shard-run") {
		// One run id per Job: a second Job of the same flags is another run.
		extra = append(extra, "--shard-run=$("+JobUIDEnv+")")
		j.JobUIDEnv = true
	}
	j.Args = k.podArgs(cmdPath, fs, []string{"out", "shard", "memory-limit"}, extra...)
	return k.write(j, fs, w, fmt.Sprintf("each shard writes %s/shard-<i>; then merge them:  rumbench merge %s/shard-* --out %s/merged", mount, mount, mount))
}
