package main

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"rumbench/internal/results"
	"rumbench/internal/sweep"
	"rumbench/internal/testdb"
)

// readJob decodes a manifest strictly into the Kubernetes Job type.
func readJob(t *testing.T, path string) *batchv1.Job {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var job batchv1.Job
	if err := yaml.UnmarshalStrict(raw, &job); err != nil {
		t.Fatalf("strict decode of %s: %v\n%s", path, err, raw)
	}
	return &job
}

// podEnv expands $(VAR) in a container's arguments as the kubelet does,
// from the pod's environment.
func podEnv(args []string, env map[string]string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		for k, v := range env {
			a = strings.ReplaceAll(a, "$("+k+")", v)
		}
		out[i] = a
	}
	return out
}

// rbEnv runs the binary with JOB_COMPLETION_INDEX set (when index != "").
func rbEnv(t *testing.T, index string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = os.Environ()
	if index != "" {
		cmd.Env = append(cmd.Env, "JOB_COMPLETION_INDEX="+index)
	}
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return so.String(), se.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return so.String(), se.String(), 0
}

// A sweep's cells as the pods of its --kubernetes Job: the manifest decodes
// into the Job type with the Indexed settings; each pod's command line (its
// $(JOB_COMPLETION_INDEX) expanded) run as its own process, two at a time,
// into one directory, then `sweep collect`, gives the cells and figures of
// the same sweep run in one process. A cell run again writes nothing; a
// missing cell is listed by collect; an unfinished one is redone.
func TestSweepCellsAsIndexedJob(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	shared := filepath.Join(dir, "pvc") // the volume every pod mounts
	flags := []string{"--engine", "pebble", "--indexes", "0,1,2", "--pad-sizes", "100", "--rows", "2000", "--interval", "200ms"}
	manifest := filepath.Join(dir, "job.yaml")
	so, se, code := rb(t, append([]string{"sweep", "--out", shared, "--kubernetes", manifest, "--pvc", "rumbench-results",
		"--parallelism", "2", "--backoff-limit-per-index", "3", "--memory-limit", "1GB", "--image", "registry.example/rumbench:t"}, flags...)...)
	if code != 0 || !strings.Contains(so, "kubectl apply -f "+manifest) {
		t.Fatalf("--kubernetes: exit %d\n%s\n%s", code, so, se)
	}
	if _, err := os.Stat(shared); err == nil {
		t.Errorf("--kubernetes ran the sweep: %s exists", shared)
	}
	job := readJob(t, manifest)
	s := job.Spec
	if *s.CompletionMode != batchv1.IndexedCompletion || *s.Completions != 3 || *s.Parallelism != 2 || *s.BackoffLimitPerIndex != 3 {
		t.Errorf("job spec: mode %v completions %d parallelism %d backoff %d", *s.CompletionMode, *s.Completions, *s.Parallelism, *s.BackoffLimitPerIndex)
	}
	pod := s.Template.Spec
	c := pod.Containers[0]
	if c.Image != "registry.example/rumbench:t" || c.Env[0].Name != "JOB_COMPLETION_INDEX" || c.Env[0].ValueFrom.FieldRef == nil {
		t.Errorf("container %s env %+v", c.Image, c.Env)
	}
	if lim := c.Resources.Limits[corev1.ResourceMemory]; lim.Value() != 1<<30 {
		t.Errorf("memory limit %s, want 1Gi (--memory-limit 1GB)", lim.String())
	}
	if pod.Volumes[0].PersistentVolumeClaim == nil || pod.Volumes[0].PersistentVolumeClaim.ClaimName != "rumbench-results" ||
		c.VolumeMounts[0].Name != pod.Volumes[0].Name || c.VolumeMounts[0].MountPath != shared {
		t.Errorf("volume %+v mounted %+v, want the PVC at --out", pod.Volumes[0], c.VolumeMounts[0])
	}
	for _, want := range []string{"sweep", "--out=" + shared, "--cell=$(JOB_COMPLETION_INDEX)", "--rows=2000", "--memory-limit=1GB", "--kubernetes-pod"} {
		if !contains(c.Args, want) {
			t.Errorf("pod args %q lack %q", c.Args, want)
		}
	}
	for _, a := range c.Args {
		if strings.HasPrefix(a, "--pvc") || strings.HasPrefix(a, "--kubernetes=") || strings.HasPrefix(a, "--parallelism") {
			t.Errorf("pod args %q carry the manifest's flag %s", c.Args, a)
		}
	}
	// The pods, two at a time, as the Job runs them (without the memory
	// limit: the container's limit is Kubernetes' to enforce).
	var args []string
	for _, a := range c.Args {
		if !strings.HasPrefix(a, "--memory-limit") {
			args = append(args, a)
		}
	}
	var wg sync.WaitGroup
	slots := make(chan struct{}, int(*s.Parallelism))
	outs := make([]string, *s.Completions)
	for i := range int(*s.Completions) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			idx := string(rune('0' + i))
			so, se, code := rbEnv(t, idx, podEnv(args, map[string]string{"JOB_COMPLETION_INDEX": idx})...)
			if code != 0 {
				t.Errorf("pod %d: exit %d\n%s\n%s", i, code, so, se)
			}
			outs[i] = so
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	if !strings.Contains(outs[1], "cell 1 of 3 (x1-pad100-c1)") {
		t.Errorf("pod 1 output:\n%s", outs[1])
	}
	so, se, code = rb(t, "sweep", "collect", shared)
	if code != 0 || !strings.Contains(so, "3 of 3 cells finished") || strings.Contains(so, "missing") {
		t.Fatalf("collect: exit %d\n%s\n%s", code, so, se)
	}
	// The same sweep in one process.
	seq := filepath.Join(dir, "seq")
	sso, sse, code := rb(t, append([]string{"sweep", "--out", seq}, flags...)...)
	if code != 0 {
		t.Fatalf("sequential sweep: exit %d\n%s\n%s", code, sso, sse)
	}
	a, _ := os.ReadFile(filepath.Join(shared, sweep.SpecFile))
	b, _ := os.ReadFile(filepath.Join(seq, sweep.SpecFile))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("sweep.json differs:\n%s\n%s", a, b)
	}
	spec, err := sweep.Load(seq)
	if err != nil {
		t.Fatal(err)
	}
	for _, cell := range spec.Cells() {
		x, err1 := results.Read(filepath.Join(shared, cell.Name(), "pebble"))
		y, err2 := results.Read(filepath.Join(seq, cell.Name(), "pebble"))
		if err1 != nil || err2 != nil {
			t.Fatalf("cell %s: %v %v", cell.Name(), err1, err2)
		}
		sx, sy := x.Steps["l.i0x"], y.Steps["l.i0x"]
		cx, _ := x.Run.Config.(map[string]any)
		cy, _ := y.Run.Config.(map[string]any)
		if sx == nil || sy == nil || sx.Inserted != 2000 || sx.Inserted != sy.Inserted || !x.Run.Complete || cx == nil ||
			!reflect.DeepEqual(cx["ibench"], cy["ibench"]) || cx["sweep_cell"] != cell.Name() {
			t.Errorf("cell %s: the pod's bundle differs from the sweep's: %+v vs %+v", cell.Name(), sx, sy)
		}
	}
	// The matrices: the same tables, rows and columns, every cell present.
	shape := func(out string) []string {
		var lines []string
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "## ") || strings.HasPrefix(l, "| engine") {
				lines = append(lines, strings.Join(strings.Fields(l), " "))
			} else if strings.HasPrefix(l, "| pebble") {
				lines = append(lines, "| pebble", strings.Repeat("|", strings.Count(l, "|")))
			}
		}
		return lines
	}
	if got, want := shape(so), shape(sso); len(want) < 4 || !reflect.DeepEqual(got, want) {
		t.Errorf("collect's tables %q\nsweep's tables %q", got, want)
	}
	if strings.Contains(so, "not run") {
		t.Errorf("collect shows a cell not run:\n%s", so)
	}

	// Written twice (a retried pod): the finished cell is not run again.
	run0 := filepath.Join(shared, "x0-pad100-c1", "pebble", results.RunFile)
	before, _ := os.ReadFile(run0)
	so, se, code = rbEnv(t, "0", append([]string{"sweep", "--out", shared, "--cell", "env"}, flags...)...)
	after, _ := os.ReadFile(run0)
	if code != 0 || !strings.Contains(so, "1 of 1 runs already finished") || !bytes.Equal(before, after) {
		t.Errorf("cell 0 again: exit %d, run.json rewritten %v\n%s\n%s", code, !bytes.Equal(before, after), so, se)
	}
	// A pod killed mid-cell left an unfinished bundle: its retry moves it
	// aside and runs the cell again.
	run2 := filepath.Join(shared, "x2-pad100-c1", "pebble")
	if err := os.WriteFile(filepath.Join(run2, results.RunFile), []byte(`{"schema_version": 2, "complete": false}`), 0o644); err != nil {
		t.Fatal(err)
	}
	so, se, code = rb(t, "sweep", "collect", shared)
	if code != 1 || !strings.Contains(so, "missing: cell 2 x2-pad100-c1 (pebble)") ||
		strings.TrimSpace(se) != "rumbench: 1 of 3 cells missing: 2 x2-pad100-c1 (rerun one with --cell INDEX and the sweep's flags)" {
		t.Errorf("collect with a cell missing: exit %d\n%s\n%s", code, so, se)
	}
	so, se, code = rbEnv(t, "2", append([]string{"sweep", "--out", shared, "--cell", "env"}, flags...)...)
	if code != 0 || !strings.Contains(so, "moved the unfinished run") || !sweep.Finished(run2) {
		t.Errorf("redo of an unfinished cell: exit %d\n%s\n%s", code, so, se)
	}
	if _, _, code := rb(t, "sweep", "collect", shared); code != 0 {
		t.Errorf("collect after the redo: exit %d", code)
	}
}

// A sharded run's manifest: N pods at once, each the same run with
// --shard $(JOB_COMPLETION_INDEX)/N into its own directory of the volume.
func TestRunShardsManifest(t *testing.T) {
	dir := t.TempDir()
	manifest := filepath.Join(dir, "run.yaml")
	so, se, code := rb(t, "run", "--engine", "postgres", "--dsn", "postgres://bench@db:5432/test", "--rows", "5000", "--clients", "8",
		"--memory-limit", "512MB", "--out", "/data/r1", "--shards", "4", "--kubernetes", manifest, "--pvc", "shared")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, so, se)
	}
	job := readJob(t, manifest)
	s := job.Spec
	if *s.CompletionMode != batchv1.IndexedCompletion || *s.Completions != 4 || *s.Parallelism != 4 || *s.BackoffLimitPerIndex != 0 {
		t.Errorf("job spec: completions %d parallelism %d backoff %d", *s.Completions, *s.Parallelism, *s.BackoffLimitPerIndex)
	}
	c := s.Template.Spec.Containers[0]
	// --memory-limit is the container's limit, not the pods' flag (--shard
	// refuses it); the run id is the Job's UID, one per Job.
	want := []string{"run", "--clients=8", "--dsn=postgres://bench@db:5432/test", "--engine=postgres", "--rows=5000",
		"--out=/data/r1/shard-$(JOB_COMPLETION_INDEX)", "--shard=$(JOB_COMPLETION_INDEX)/4", "--shard-run=$(RUMBENCH_JOB_UID)", "--kubernetes-pod"}
	if !reflect.DeepEqual(c.Args, want) {
		t.Errorf("pod args\n%q\nwant\n%q", c.Args, want)
	}
	if uid := envVar(c.Env, "RUMBENCH_JOB_UID"); uid == nil || uid.ValueFrom == nil || uid.ValueFrom.FieldRef == nil ||
		uid.ValueFrom.FieldRef.FieldPath != "metadata.labels['batch.kubernetes.io/controller-uid']" {
		t.Errorf("RUMBENCH_JOB_UID: %+v", uid)
	}
	if lim := c.Resources.Limits[corev1.ResourceMemory]; lim.Value() != 512<<20 || c.VolumeMounts[0].MountPath != "/data/r1" {
		t.Errorf("limit %s, mount %s", lim.String(), c.VolumeMounts[0].MountPath)
	}
	// A DSN with a password comes from a Secret, not the manifest.
	if _, se, code := rb(t, "run", "--engine", "postgres", "--dsn", "postgres://bench:s3cret@db/test", "--shards", "2", "--kubernetes", manifest,
		"--pvc", "shared", "--dsn-secret", "bench-dsn"); code != 0 {
		t.Fatalf("--dsn-secret: exit %d %s", code, se)
	}
	raw, _ := os.ReadFile(manifest)
	c = readJob(t, manifest).Spec.Template.Spec.Containers[0]
	env := envVar(c.Env, "RUMBENCH_DSN")
	if strings.Contains(string(raw), "s3cret") || !contains(c.Args, "--dsn=$(RUMBENCH_DSN)") || env == nil ||
		env.ValueFrom == nil || env.ValueFrom.SecretKeyRef == nil || env.ValueFrom.SecretKeyRef.Name != "bench-dsn" || env.ValueFrom.SecretKeyRef.Key != "dsn" {
		t.Errorf("--dsn-secret: args %q env %+v", c.Args, c.Env)
	}
	// An explicit --shard-run is kept, and no Job UID takes its place.
	if _, se, code := rb(t, "run", "--engine", "innodb", "--clients", "2", "--shard-run", "nightly-7", "--shards", "2", "--kubernetes", manifest, "--pvc", "shared"); code != 0 {
		t.Fatalf("--shard-run: exit %d %s", code, se)
	}
	if c := readJob(t, manifest).Spec.Template.Spec.Containers[0]; !contains(c.Args, "--shard-run=nightly-7") || contains(c.Args, "--shard-run=$(RUMBENCH_JOB_UID)") {
		t.Errorf("--shard-run: pod args %q", c.Args)
	}
	// One shard is one pod running the run as it is: any engine, no
	// --shard, its own --memory-limit (the pod records its container's
	// cgroup).
	if _, se, code := rb(t, "run", "--engine", "pebble", "--memory-limit", "256MB", "--out", "/data/one", "--kubernetes", manifest, "--pvc", "shared"); code != 0 {
		t.Fatalf("one pod: exit %d %s", code, se)
	}
	one := readJob(t, manifest)
	if c := one.Spec.Template.Spec.Containers[0]; *one.Spec.Completions != 1 ||
		!reflect.DeepEqual(c.Args, []string{"run", "--engine=pebble", "--memory-limit=256MB", "--out=/data/one", "--kubernetes-pod"}) || envVar(c.Env, "RUMBENCH_JOB_UID") != nil {
		t.Errorf("one pod: completions %d, args %q, env %+v", *one.Spec.Completions, c.Args, c.Env)
	}
	// What the pods would refuse is refused before a manifest is written:
	// an embedded engine, a workload that cannot be split, fewer clients
	// than shards.
	for _, bad := range [][]string{
		{"run", "--engine", "sqlite", "--shards", "2"},
		{"run", "hotrow", "--engine", "postgres", "--shards", "2"},
		{"run", "--engine", "postgres", "--clients", "2", "--shards", "3"},
		{"run", "--engine", "postgres", "--shards", "2", "--repeat", "2"},
		{"run", "--engine", "postgres", "--shards", "2", "--managed"},
		{"run", "--engine", "postgres", "--shards", "2", "--engine-opt", "drop_database=1"},
	} {
		wantBadInput(t, []string{"--shard"}, append(bad, "--kubernetes", filepath.Join(dir, "bad.yaml"), "--pvc", "shared")...)
		if _, err := os.Stat(filepath.Join(dir, "bad.yaml")); err == nil {
			t.Errorf("%v wrote a manifest", bad)
		}
	}
}

func envVar(env []corev1.EnvVar, name string) *corev1.EnvVar {
	for i := range env {
		if env[i].Name == name {
			return &env[i]
		}
	}
	return nil
}

// Refusals are one line, exit 2, naming the fix.
func TestKubernetesRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	m := filepath.Join(dir, "j.yaml")
	sw := []string{"sweep", "--engine", "pebble", "--indexes", "0,1", "--rows", "1000", "--out", filepath.Join(dir, "s")}
	wantBadInput(t, []string{"--pvc is required"}, append(sw, "--kubernetes", m)...)
	wantBadInput(t, []string{"--parallelism", "add --kubernetes"}, append(sw, "--parallelism", "4")...)
	wantBadInput(t, []string{"--parallelism must be at least 1"}, append(sw, "--kubernetes", m, "--pvc", "p", "--parallelism", "0")...)
	wantBadInput(t, []string{"--job-name"}, append(sw, "--kubernetes", m, "--pvc", "p", "--job-name", "Bad_Name")...)
	wantBadInput(t, []string{"--cell and --kubernetes"}, append(sw, "--kubernetes", m, "--pvc", "p", "--cell", "0")...)
	wantBadInput(t, []string{"--cell 2 is out of range", "indexed 0 to 1"}, append(sw, "--cell", "2")...)
	wantBadInput(t, []string{"JOB_COMPLETION_INDEX is not set"}, append(sw, "--cell", "env")...)
	wantBadInput(t, []string{"--shards", "add --kubernetes"}, "run", "--engine", "pebble", "--shards", "2")
	wantBadInput(t, []string{"--shards must be at least 1"}, "run", "--engine", "pebble", "--shards", "0", "--kubernetes", m, "--pvc", "p")
	wantBadInput(t, []string{"--dsn holds a password", "--dsn-secret"}, "run", "--engine", "postgres", "--dsn", "postgres://u:pw@db/x", "--kubernetes", m, "--pvc", "p")
	wantBadInput(t, []string{"--dsn holds a password"}, "run", "--engine", "innodb", "--dsn", "u:pw@tcp(db:3306)/x", "--kubernetes", m, "--pvc", "p")
	wantBadInput(t, []string{"--dsn-secret", "add --kubernetes"}, "run", "--engine", "postgres", "--dsn-secret", "s")
	wantBadInput(t, []string{"--host-network", "add --kubernetes"}, append(sw, "--host-network")...)
	wantBadInput(t, []string{"is not a sweep directory"}, "sweep", "collect", dir)
	wantBadInput(t, []string{"takes one sweep directory"}, "sweep", "collect")
	if _, err := os.Stat(m); err == nil {
		t.Errorf("a refused command wrote %s", m)
	}
}

// What a real cluster showed (docs/scale-out.md, "On a real cluster"): each
// Job mounts the volume's directory named as its --out, not the volume's
// root, so two sweeps (or a sweep and a run) share one volume, and a pod
// that mounts the root at /results finds each at its --out; --host-network
// puts the pods in the node's network namespace to reach a server on the
// node's loopback, and stays out of the pods' arguments.
func TestJobOnARealCluster(t *testing.T) {
	dir := t.TempDir()
	m := filepath.Join(dir, "j.yaml")
	mounts := map[string]corev1.VolumeMount{}
	for _, out := range []string{"/results/s1", "s2", "/data/s3"} {
		if _, se, code := rb(t, "sweep", "--engine", "pebble", "--indexes", "0,1", "--rows", "1000", "--out", out,
			"--kubernetes", m, "--pvc", "p"); code != 0 {
			t.Fatalf("sweep --out %s: exit %d %s", out, code, se)
		}
		job := readJob(t, m)
		mounts[out] = job.Spec.Template.Spec.Containers[0].VolumeMounts[0]
		if job.Spec.Template.Spec.HostNetwork {
			t.Errorf("sweep --out %s: hostNetwork without --host-network", out)
		}
	}
	for out, want := range map[string][2]string{"/results/s1": {"/results/s1", "s1"}, "s2": {"/results/s2", "s2"}, "/data/s3": {"/data/s3", "data/s3"}} {
		if got := mounts[out]; got.Name != "results" || got.MountPath != want[0] || got.SubPath != want[1] {
			t.Errorf("--out %s: mount %+v, want the volume's %s at %s", out, got, want[1], want[0])
		}
	}
	so, se, code := rb(t, "run", "--engine", "postgres", "--dsn", "postgres://postgres@127.0.0.1:5432/test", "--clients", "4", "--rows", "1000",
		"--out", "/results/r1", "--shards", "2", "--host-network", "--kubernetes", m, "--pvc", "p")
	if code != 0 || !strings.Contains(so, "(directory r1)") {
		t.Fatalf("run --host-network: exit %d\n%s\n%s", code, so, se)
	}
	job := readJob(t, m)
	pod := job.Spec.Template.Spec
	c := pod.Containers[0]
	if !pod.HostNetwork || pod.DNSPolicy != corev1.DNSClusterFirstWithHostNet {
		t.Errorf("--host-network: hostNetwork %v dnsPolicy %q", pod.HostNetwork, pod.DNSPolicy)
	}
	if c.VolumeMounts[0].SubPath != "r1" || c.VolumeMounts[0].MountPath != "/results/r1" || !contains(c.Args, "--out=/results/r1/shard-$(JOB_COMPLETION_INDEX)") {
		t.Errorf("run: mount %+v args %q", c.VolumeMounts[0], c.Args)
	}
	for _, a := range c.Args {
		if strings.Contains(a, "host-network") {
			t.Errorf("pod args %q carry --host-network", c.Args)
		}
	}
}

// A run of labelled variants as a Job: one pod runs them as the run does
// (its flags passed through).
func TestRunVariantsManifest(t *testing.T) {
	manifest := filepath.Join(t.TempDir(), "run.yaml")
	so, se, code := rb(t, "run", "--engine", "none=pebble,zstd=pebble", "--engine-opt", "none.compression=none", "--engine-opt", "zstd.compression=zstd",
		"--out", "/data/r1", "--kubernetes", manifest, "--pvc", "shared")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, so, se)
	}
	c := readJob(t, manifest).Spec.Template.Spec.Containers[0]
	want := []string{"run", "--engine=none=pebble,zstd=pebble", "--engine-opt=none.compression=none", "--engine-opt=zstd.compression=zstd", "--out=/data/r1", "--kubernetes-pod"}
	if !reflect.DeepEqual(c.Args, want) {
		t.Errorf("pod args\n%q\nwant\n%q", c.Args, want)
	}
}

// Two labelled variants × two shards as a Job: each pod is one shard and
// runs both variants in turn (as a run does, never at once on the one
// server), its arguments naming them with their scoped settings; the Job's
// name and labels are valid Kubernetes names and label values. The pods'
// command lines, run here as two processes against the local PostgreSQL,
// write <out>/shard-<i>/<label>/, and merge makes one bundle per label that
// the report shows under both labels.
func TestRunShardsOfVariants(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	shared := filepath.Join(dir, "pvc")
	manifest := filepath.Join(dir, "run.yaml")
	database := testdb.Name(t, "rb_shard_variants")
	flags := []string{"run", "--engine", "a=postgres,b=postgres", "--engine-opt", "b.synchronous_commit=off",
		"--dsn", pgDSN(), "--database", database, "--clients", "2", "--rows", "400", "--churn-rows", "200", "--indexes", "1",
		"--steps", "l.i0,l.x,l.i1", "--interval", "250ms", "--shard-timeout", "30s", "--out", shared}
	// The DSN from a Secret, as with a password it would have to be.
	so, se, code := rb(t, append(flags, "--shards", "2", "--kubernetes", manifest, "--pvc", "shared", "--job-name", "ab-shards", "--dsn-secret", "pg")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, so, se)
	}
	job := readJob(t, manifest)
	s := job.Spec
	if *s.Completions != 2 || *s.Parallelism != 2 || *s.BackoffLimitPerIndex != 0 {
		t.Errorf("job spec: completions %d parallelism %d backoff %d, want 2 shards at once, unretried", *s.Completions, *s.Parallelism, *s.BackoffLimitPerIndex)
	}
	c := s.Template.Spec.Containers[0]
	want := []string{"run", "--churn-rows=200", "--clients=2", "--database=" + database, "--engine=a=postgres,b=postgres",
		"--engine-opt=b.synchronous_commit=off", "--indexes=1", "--interval=250ms", "--rows=400", "--shard-timeout=30s", "--steps=l.i0,l.x,l.i1",
		"--dsn=$(RUMBENCH_DSN)", "--out=" + shared + "/shard-$(JOB_COMPLETION_INDEX)", "--shard=$(JOB_COMPLETION_INDEX)/2", "--shard-run=$(RUMBENCH_JOB_UID)", "--kubernetes-pod"}
	if !reflect.DeepEqual(c.Args, want) {
		t.Errorf("pod args\n%q\nwant\n%q", c.Args, want)
	}
	if errs := validation.IsDNS1123Label(job.Name); len(errs) > 0 {
		t.Errorf("Job name %q: %v", job.Name, errs)
	}
	for _, m := range []map[string]string{job.Labels, s.Template.Labels} {
		if m["app.kubernetes.io/instance"] != "ab-shards" {
			t.Errorf("labels %v: want instance ab-shards", m)
		}
		for k, v := range m {
			if errs := append(validation.IsQualifiedName(k), validation.IsValidLabelValue(v)...); len(errs) > 0 {
				t.Errorf("label %s=%s: %v", k, v, errs)
			}
		}
	}
	// A managed server's settings cannot reach the shards' one server.
	wantBadInput(t, []string{"--shard cannot be combined with --server-opt"}, append(flags, "--server-opt", "b.work_mem=8MB",
		"--shards", "2", "--kubernetes", filepath.Join(dir, "bad.yaml"), "--pvc", "shared")...)

	// The pods, both at once, as the Job runs them.
	freshDB(t, pgAdmin(t), database)
	env := map[string]string{"RUMBENCH_JOB_UID": "uid-" + filepath.Base(dir), "RUMBENCH_DSN": pgDSN()}
	var wg sync.WaitGroup
	errs := make([]string, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			idx := fmt.Sprint(i)
			env := maps.Clone(env)
			env["JOB_COMPLETION_INDEX"] = idx
			if so, se, code := rbEnv(t, idx, podEnv(c.Args, env)...); code != 0 {
				errs[i] = fmt.Sprintf("pod %d: exit %d\n%s\n%s", i, code, so, se)
			}
		}()
	}
	wg.Wait()
	shards := []string{filepath.Join(shared, "shard-0"), filepath.Join(shared, "shard-1")}
	m := mergeShardsOf(t, errs, shared, shards, "a")
	mb := readBundle(t, filepath.Join(shared, "merged", "b"))
	runIDs := map[string]bool{}
	for label, b := range map[string]*results.Bundle{"a": m, "b": mb} {
		if b.Run.Label != label || b.Run.MergedFrom == nil || b.Run.MergedFrom.Count != 2 || !b.Run.Complete {
			t.Fatalf("merged %s: label %q, merged from %+v, complete %v", label, b.Run.Label, b.Run.MergedFrom, b.Run.Complete)
		}
		// Each variant met at barrier rows of its own.
		runIDs[b.Run.MergedFrom.RunID] = true
		for _, step := range []struct {
			name, op    string
			count, rows int64
		}{
			{"l.i0", "insert", 8, 800}, // 100 rows per transaction, 2 clients
			{"l.x", "index", 2, 800},   // one build per table, shard 0 alone
			{"l.i1", "insert", 8, 320}, // 4/5 of 200 rows per client, 40 per transaction
		} {
			o := b.Steps[step.name].Ops[step.op]
			if o == nil || o.Count != step.count || o.Rows != step.rows {
				t.Errorf("merged %s %s %s = %+v, want %d operations of %d rows", label, step.name, step.op, o, step.count, step.rows)
			}
		}
	}
	if len(runIDs) != 2 {
		t.Errorf("the variants' run ids %v: want one each", runIDs)
	}
	if got := mb.Run.Engine.Settings["synchronous_commit"]; got != "off" {
		t.Errorf("variant b ran with synchronous_commit %q, want its own off", got)
	}
	rep, se, code := rb(t, "report", filepath.Join(shared, "merged"))
	if code != 0 || runsRow(rep, "a") == "" || runsRow(rep, "b") == "" || !strings.Contains(rep, "merged from 2 shards") {
		t.Errorf("report of the merged variants: exit %d\n%s\n%s", code, rep, se)
	}
}
