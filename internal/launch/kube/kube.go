// Package kube writes the Kubernetes Job that runs rumbench's sweep cells or
// a run's shards as pods of one Indexed Job: pod i runs index i (the
// JOB_COMPLETION_INDEX Kubernetes gives it), all of them write into one
// shared volume. The manifest is written as YAML for kubectl apply from
// rumbench's own copy of the few Job fields it sets (manifest.go), not from
// k8s.io/api: those modules were a tenth of the first build's CPU. The tests
// decode every manifest strictly into the Kubernetes types.
package kube

import (
	"errors"
	"fmt"
	"os"
	"path"
	"strings"

	"sigs.k8s.io/yaml"

	"rumbench/internal/launch"
)

// IndexArg is the pod's completion index in container arguments: Kubernetes
// expands $(VAR) from the container's environment.
const IndexArg = "$(" + launch.IndexEnv + ")"

// indexAnnotation is where the Job controller puts each pod's index.
const indexAnnotation = "batch.kubernetes.io/job-completion-index"

// Container paths of the two volumes.
const (
	// ScratchDir holds the engines' temporary data dirs (TMPDIR): node
	// disk, not the container's layer and not the shared volume.
	ScratchDir = "/scratch"
	// DefaultResults is where the shared volume is mounted when --out is
	// a relative path.
	DefaultResults = "/results"
)

// Job describes the Indexed Job.
type Job struct {
	// Name is metadata.name and the pods' name prefix.
	Name string
	// Component labels the pods: "sweep" or "run".
	Component string
	Image     string
	// Args follow the command "rumbench"; they may use IndexArg.
	Args []string
	// Completions is the number of indexes; Parallelism how many pods run
	// at once.
	Completions, Parallelism int
	// BackoffLimitPerIndex is how many times one index's pod is retried.
	BackoffLimitPerIndex int
	// PVC is the ReadWriteMany PersistentVolumeClaim every pod mounts at
	// MountPath: its directory VolumeDir(MountPath), not its root.
	PVC, MountPath string
	// MemoryBytes is the container's memory request and limit (0: none).
	MemoryBytes int64
	// DSNSecret names a Secret whose key "dsn" becomes the pods' DSNEnv,
	// so a password stays out of the manifest ("" for none).
	DSNSecret string
	// JobUIDEnv gives the pods the Job's UID in JobUIDEnv: one id per
	// Job, which a sharded run's pods share (--shard-run).
	JobUIDEnv bool
	// HostNetwork runs the pods in their node's network namespace
	// (--host-network): a server the pod network does not reach (one
	// listening on the node's loopback, or outside the cluster on the
	// nodes' network), and no pod-network hop in the measured round
	// trips. Service names still resolve (dnsPolicy
	// ClusterFirstWithHostNet).
	HostNetwork bool
}

// JobUIDEnv is the pods' variable holding their Job's UID (from the label
// the Job controller puts on its pods).
const JobUIDEnv = "RUMBENCH_JOB_UID"

// jobUIDLabel is the label with the pod's Job's UID (Kubernetes 1.27+).
const jobUIDLabel = "batch.kubernetes.io/controller-uid"

// DSNEnv is the pods' variable holding the server address from DSNSecret;
// their arguments give --dsn=$(RUMBENCH_DSN).
const DSNEnv = "RUMBENCH_DSN"

// Check refuses a Job Kubernetes would refuse, naming the flag to fix.
func (j *Job) Check() error {
	if errs := dns1123Label(j.Name); len(errs) > 0 {
		return fmt.Errorf("--job-name %q is not a Kubernetes Job name (%s): use lower-case letters, digits and '-', e.g. rumbench-sweep", j.Name, strings.Join(errs, "; "))
	}
	if j.PVC == "" {
		return errors.New("--pvc is required with --kubernetes: the ReadWriteMany PersistentVolumeClaim every pod writes its results to")
	}
	if errs := dns1123Subdomain(j.PVC); len(errs) > 0 {
		return fmt.Errorf("--pvc %q is not a PersistentVolumeClaim name (%s)", j.PVC, strings.Join(errs, "; "))
	}
	if j.DSNSecret != "" {
		if errs := dns1123Subdomain(j.DSNSecret); len(errs) > 0 {
			return fmt.Errorf("--dsn-secret %q is not a Secret name (%s)", j.DSNSecret, strings.Join(errs, "; "))
		}
	}
	if strings.TrimSpace(j.Image) == "" {
		return errors.New("--image is empty: give the container image that holds rumbench")
	}
	if j.Completions < 1 {
		return fmt.Errorf("the Job needs at least one index, got %d", j.Completions)
	}
	if j.Parallelism < 1 {
		return fmt.Errorf("--parallelism must be at least 1, got %d", j.Parallelism)
	}
	if j.BackoffLimitPerIndex < 0 {
		return fmt.Errorf("--backoff-limit-per-index must be 0 or more, got %d", j.BackoffLimitPerIndex)
	}
	if !path.IsAbs(j.MountPath) {
		return fmt.Errorf("the results volume's mount path %q is not absolute", j.MountPath)
	}
	return nil
}

// Build returns the Job as the manifest's object (the subset of the
// Kubernetes batch/v1 Job that rumbench sets).
func (j *Job) Build() (*job, error) {
	if err := j.Check(); err != nil {
		return nil, err
	}
	labels := map[string]string{
		"app.kubernetes.io/name":      "rumbench",
		"app.kubernetes.io/component": j.Component,
		"app.kubernetes.io/instance":  j.Name,
	}
	c := container{
		Name:    "rumbench",
		Image:   j.Image,
		Command: []string{"rumbench"},
		Args:    j.Args,
		Env: []envVar{
			{Name: launch.IndexEnv, ValueFrom: &envVarSource{
				FieldRef: &fieldRef{FieldPath: "metadata.annotations['" + indexAnnotation + "']"}}},
			{Name: "TMPDIR", Value: ScratchDir},
		},
		VolumeMounts: []volumeMount{
			// The volume's directory for this --out, not its root: one
			// volume holds many sweeps and runs side by side, each where
			// its --out says (the kubelet makes the directory).
			{Name: "results", MountPath: j.MountPath, SubPath: VolumeDir(j.MountPath)},
			{Name: "scratch", MountPath: ScratchDir},
		},
	}
	if j.DSNSecret != "" {
		c.Env = append(c.Env, envVar{Name: DSNEnv, ValueFrom: &envVarSource{
			SecretKeyRef: &secretKeyRef{Name: j.DSNSecret, Key: "dsn"}}})
	}
	if j.JobUIDEnv {
		c.Env = append(c.Env, envVar{Name: JobUIDEnv, ValueFrom: &envVarSource{
			FieldRef: &fieldRef{FieldPath: "metadata.labels['" + jobUIDLabel + "']"}}})
	}
	if j.MemoryBytes > 0 {
		// Request = limit: the scheduler places the pod where that much is
		// free, and the container's cgroup holds the engine to it, page
		// cache included, as --memory-limit does on one machine.
		q := binaryQuantity(j.MemoryBytes)
		c.Resources = &resources{
			Limits:   map[string]string{"memory": q},
			Requests: map[string]string{"memory": q},
		}
	}
	spec := podSpec{
		RestartPolicy: "Never",
		// Pods of one Job on one node would disturb each other's
		// measurements: spread them when nodes allow.
		Affinity: &affinity{PodAntiAffinity: &podAntiAffinity{
			Preferred: []weightedPodAffinityTerm{{
				Weight: 100,
				PodAffinityTerm: podAffinityTerm{
					LabelSelector: &labelSelector{MatchLabels: map[string]string{"app.kubernetes.io/instance": j.Name}},
					TopologyKey:   "kubernetes.io/hostname",
				},
			}},
		}},
		Containers: []container{c},
		Volumes: []volume{
			{Name: "results", PersistentVolumeClaim: &pvcSource{ClaimName: j.PVC}},
			{Name: "scratch", EmptyDir: &emptyDir{}},
		},
	}
	if j.HostNetwork {
		spec.HostNetwork = true
		spec.DNSPolicy = "ClusterFirstWithHostNet"
	}
	return &job{
		APIVersion: "batch/v1",
		Kind:       "Job",
		Metadata:   objectMeta{Name: j.Name, Labels: labels},
		Spec: jobSpec{
			CompletionMode:       "Indexed",
			Completions:          j.Completions,
			Parallelism:          j.Parallelism,
			BackoffLimitPerIndex: j.BackoffLimitPerIndex,
			// A pod is replaced only once it has stopped: two pods of one
			// index never write its directory at the same time.
			PodReplacementPolicy: "Failed",
			Template: podTemplate{
				Metadata: objectMeta{Labels: labels},
				Spec:     spec,
			},
		},
	}, nil
}

// Manifest is the Job as YAML for kubectl apply.
func (j *Job) Manifest() ([]byte, error) {
	job, err := j.Build()
	if err != nil {
		return nil, err
	}
	out, err := yaml.Marshal(job)
	if err != nil {
		return nil, fmt.Errorf("write the Job as YAML: %w", err)
	}
	return out, nil
}

// WriteFile writes the manifest to path.
func (j *Job) WriteFile(path string) error {
	out, err := j.Manifest()
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		return fmt.Errorf("write the Job manifest: %w", err)
	}
	return nil
}

// MountPath is where the shared volume goes for an --out directory: out
// itself when absolute, else under DefaultResults.
func MountPath(out string) string {
	if path.IsAbs(out) {
		return path.Clean(out)
	}
	return path.Join(DefaultResults, out)
}

// VolumeDir is the directory of the shared volume that a pod mounts at
// mount (the volume mount's subPath), so that the volume holds each sweep
// or run in a directory of its own, named as its --out: mount relative to
// DefaultResults when under it ("/results/s1" is "s1", as a relative --out
// "s1" is), else mount without its leading "/" ("/data/s1" is "data/s1");
// "" (the volume's root) for DefaultResults or "/" itself. A pod that
// mounts the volume's root at DefaultResults (a collect or merge pod) sees
// every --out under /results at the path the Job's pods wrote it.
func VolumeDir(mount string) string {
	m := path.Clean("/" + mount)
	if rel, ok := strings.CutPrefix(m, DefaultResults+"/"); ok {
		return rel
	}
	if m == DefaultResults || m == "/" {
		return ""
	}
	return strings.TrimPrefix(m, "/")
}
