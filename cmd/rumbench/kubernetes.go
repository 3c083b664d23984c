package main

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"rumbench/internal/launch"
	"rumbench/internal/launch/kube"
	"rumbench/internal/plan"
	"rumbench/internal/runner"
	"rumbench/internal/version"
)

// podFlag marks a process started by a --kubernetes manifest.
const podFlag = "kubernetes-pod"

// kubeFlags are --kubernetes and the settings of the Job it writes.
type kubeFlags struct {
	file        string
	image       string
	pvc         string
	jobName     string
	dsnSecret   string
	parallelism int
	backoff     int
	hostNetwork bool
	// shards is run's number of shards (indexes of the Job).
	shards int
}

// kubeFlagNames are the flags that shape the manifest, not the pods' run.
var kubeFlagNames = []string{"kubernetes", "image", "pvc", "job-name", "parallelism", "backoff-limit-per-index", "shards", "dsn-secret", "host-network"}

// addKubeFlags adds --kubernetes and its settings; what is "sweep" or
// "run".
func addKubeFlags(fl *pflag.FlagSet, k *kubeFlags, what string) {
	index, backoff := "cell", 2
	if what == "run" {
		// A shard retried alone cannot meet the others at a step's start.
		index, backoff = "shard", 0
	}
	fl.StringVar(&k.file, "kubernetes", "", "write a Kubernetes Job manifest (batch/v1, Indexed: one pod per "+index+") to this file instead of running; apply it with kubectl apply -f FILE (docs/scale-out.md)")
	fl.StringVar(&k.image, "image", "rumbench:"+version.Version, "with --kubernetes: the container image, with rumbench on its PATH")
	fl.StringVar(&k.pvc, "pvc", "", "with --kubernetes: the ReadWriteMany PersistentVolumeClaim every pod writes its results to, mounted at --out (under "+kube.DefaultResults+" when --out is relative)")
	fl.StringVar(&k.jobName, "job-name", "rumbench-"+what, "with --kubernetes: the Job's name")
	fl.StringVar(&k.dsnSecret, "dsn-secret", "", "with --kubernetes: a Secret whose key \"dsn\" is the server address the pods use (instead of --dsn, whose password the manifest would show)")
	fl.BoolVar(&k.hostNetwork, "host-network", false, "with --kubernetes: run the pods in their node's network namespace (hostNetwork), to reach a server the pod network does not (one on the node's loopback, or on the nodes' network) and keep the pod network out of the measured round trips")
	fl.IntVar(&k.backoff, "backoff-limit-per-index", backoff, "with --kubernetes: how many times Kubernetes retries the pod of one "+index)
	if what == "run" {
		fl.IntVar(&k.shards, "shards", 1, "with --kubernetes: the number of shards, each a pod running --shard i/N (all run at once); 1: one pod running the run as it is")
	} else {
		fl.IntVar(&k.parallelism, "parallelism", 1, "with --kubernetes: how many cells run at once (pods are spread over nodes when there are enough)")
	}
}

// podArgs is the command line of a pod: cmd's path and the flags given,
// without the manifest's own flags and those in skip, then extra. With
// --dsn-secret the pods' --dsn comes from the Secret.
func podArgs(cmd *cobra.Command, k *kubeFlags, skip []string, extra ...string) []string {
	drop := map[string]bool{"config": true, podFlag: true}
	if k.dsnSecret != "" {
		drop["dsn"] = true
		extra = append([]string{"--dsn=$(" + kube.DSNEnv + ")"}, extra...)
	}
	for _, n := range append(append([]string(nil), kubeFlagNames...), skip...) {
		drop[n] = true
	}
	args := strings.Fields(cmd.CommandPath())[1:]
	args = append(args, launch.FlagArgs(cmd.Flags(), func(name string) bool {
		return drop[name] || strings.HasPrefix(name, "child-")
	})...)
	return append(append(args, extra...), "--"+podFlag)
}

// writeJob writes the manifest and says how to start it and read it.
func writeJob(cmd *cobra.Command, j *kube.Job, file, next string) error {
	if err := j.Check(); err != nil {
		return &runner.BadInputError{Err: err}
	}
	if dsn, _ := cmd.Flags().GetString("dsn"); j.DSNSecret == "" && kube.DSNHasPassword(dsn) {
		return &runner.BadInputError{Err: errors.New("--dsn holds a password, which the manifest would carry in plain text: put the DSN in a Secret (key \"dsn\") and give --dsn-secret NAME instead")}
	}
	if err := j.WriteFile(file); err != nil {
		return err
	}
	j.Describe(cmd.OutOrStdout(), file, next)
	return nil
}

// writeSweepJob writes the Indexed Job whose pod i runs cell i of the
// sweep (--cell $(JOB_COMPLETION_INDEX)) into the shared volume.
func writeSweepJob(cmd *cobra.Command, k *kubeFlags, out string, cells int, memory int64) error {
	mount := kube.MountPath(out)
	j := &kube.Job{
		Name: k.jobName, Component: "sweep", Image: k.image,
		Args:        podArgs(cmd, k, []string{"out", "cell", "compare-to"}, "--out="+mount, "--cell="+kube.IndexArg),
		Completions: cells, Parallelism: k.parallelism, BackoffLimitPerIndex: k.backoff,
		PVC: k.pvc, MountPath: mount, MemoryBytes: memory, DSNSecret: k.dsnSecret,
		HostNetwork: k.hostNetwork,
	}
	if j.Parallelism > cells {
		j.Parallelism = cells // more pods would have no cell to run
	}
	return writeJob(cmd, j, k.file, "then, with the volume mounted:  rumbench sweep collect "+mount)
}

// writeRunJob writes the Indexed Job of a run: with --shards N > 1, N pods
// at once, pod i running the same run with --shard i/N into <out>/shard-i
// (its variants' bundles in <out>/shard-i/<label>); with 1, one pod running
// the run as it is into <out>.
func writeRunJob(cmd *cobra.Command, k *kubeFlags, engines []string, out string, m *memFlags) error {
	if k.shards < 1 {
		return &runner.BadInputError{Err: fmt.Errorf("--shards must be at least 1, got %d", k.shards)}
	}
	ms, err := podMemory(m)
	if err != nil {
		return &runner.BadInputError{Err: err}
	}
	if out == "" {
		out = "."
	}
	mount := kube.MountPath(out)
	j := &kube.Job{
		Name: k.jobName, Component: "run", Image: k.image,
		Completions: k.shards, Parallelism: k.shards, BackoffLimitPerIndex: k.backoff,
		PVC: k.pvc, MountPath: mount, MemoryBytes: ms.Limit, DSNSecret: k.dsnSecret,
		HostNetwork: k.hostNetwork,
	}
	if k.shards == 1 {
		j.Args = podArgs(cmd, k, []string{"out"}, "--out="+mount)
		return writeJob(cmd, j, k.file, fmt.Sprintf("the run writes %s", mount))
	}
	// The pods run what --shard accepts: server engines only, no flag it
	// refuses (nor a managed server's settings), and no --memory-limit of
	// their own (the container's limit holds them). Each pod runs every
	// variant, one after another as a run does, as its shard.
	if err := checkShardFlags(cmd.Flags(), "server-opt", "install"); err != nil {
		return err
	}
	if err := plan.CheckShardedEngines(engines); err != nil {
		return err
	}
	extra := []string{"--out=" + path.Join(mount, "shard-"+kube.IndexArg), fmt.Sprintf("--shard=%s/%d", kube.IndexArg, k.shards)}
	if !cmd.Flags().Changed("shard-run") {
		// One run id per Job: a second Job of the same flags is another run.
		extra = append(extra, "--shard-run=$("+kube.JobUIDEnv+")")
		j.JobUIDEnv = true
	}
	j.Args = podArgs(cmd, k, []string{"out", "shard", "memory-limit"}, extra...)
	return writeJob(cmd, j, k.file, fmt.Sprintf("each shard writes %s/shard-<i>; then merge them:  rumbench merge %s/shard-* --out %s/merged", mount, mount, mount))
}

// podMemory is the pods' memory limit: --memory-limit (or the largest a
// preset sized), checked as a run checks it but with no cgroup made here,
// and no cache dropped.
func podMemory(m *memFlags) (*launch.Memory, error) {
	pm := *m
	pm.pod, pm.dropCaches = true, false
	return setupMemory(&pm)
}

// checkKubeFlags refuses the manifest's flags without --kubernetes.
func checkKubeFlags(fl *pflag.FlagSet, k *kubeFlags) error {
	if k.file != "" {
		return nil
	}
	for _, n := range kubeFlagNames[1:] {
		if f := fl.Lookup(n); f != nil && f.Changed {
			return &runner.BadInputError{Err: fmt.Errorf("--%s shapes the Kubernetes Job: add --kubernetes FILE (or leave --%s out)", n, n)}
		}
	}
	return nil
}
