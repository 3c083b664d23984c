package kube

import (
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

func testJob() *Job {
	return &Job{Name: "rumbench-sweep", Component: "sweep", Image: "rumbench:test",
		Args:        []string{"sweep", "--engine=pebble", "--out=/results/s1", "--cell=" + IndexArg},
		Completions: 8, Parallelism: 3, BackoffLimitPerIndex: 2, PVC: "results", MountPath: "/results/s1", MemoryBytes: 3 << 29}
}

// The manifest decodes strictly (no field the API does not know) into the
// Kubernetes Job type and carries the Indexed Job's settings.
func TestManifestDecodesStrictly(t *testing.T) {
	raw, err := testJob().Manifest()
	if err != nil {
		t.Fatal(err)
	}
	var job batchv1.Job
	if err := yaml.UnmarshalStrict(raw, &job); err != nil {
		t.Fatalf("strict decode: %v\n%s", err, raw)
	}
	s := job.Spec
	if job.APIVersion != "batch/v1" || job.Kind != "Job" || job.Name != "rumbench-sweep" {
		t.Errorf("type/name %s %s %s", job.APIVersion, job.Kind, job.Name)
	}
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion || *s.Completions != 8 || *s.Parallelism != 3 ||
		*s.BackoffLimitPerIndex != 2 || s.PodReplacementPolicy == nil || *s.PodReplacementPolicy != batchv1.Failed {
		t.Errorf("job spec %+v", s)
	}
	p := s.Template.Spec
	if p.RestartPolicy != corev1.RestartPolicyNever || len(p.Containers) != 1 {
		t.Fatalf("pod spec %+v", p)
	}
	c := p.Containers[0]
	if c.Image != "rumbench:test" || strings.Join(c.Command, " ") != "rumbench" || c.Args[len(c.Args)-1] != "--cell=$(JOB_COMPLETION_INDEX)" {
		t.Errorf("container %s %v %v", c.Image, c.Command, c.Args)
	}
	if len(c.Env) == 0 || c.Env[0].Name != "JOB_COMPLETION_INDEX" || c.Env[0].ValueFrom == nil ||
		c.Env[0].ValueFrom.FieldRef.FieldPath != "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
		t.Errorf("env %+v", c.Env)
	}
	mem := c.Resources.Limits[corev1.ResourceMemory]
	req := c.Resources.Requests[corev1.ResourceMemory]
	if mem.Value() != 3<<29 || req.Value() != 3<<29 || mem.String() != "1536Mi" {
		t.Errorf("memory limit %s request %s, want 1536Mi both", mem.String(), req.String())
	}
	var claim string
	for _, v := range p.Volumes {
		if v.Name == "results" && v.PersistentVolumeClaim != nil {
			claim = v.PersistentVolumeClaim.ClaimName
		}
	}
	if claim != "results" {
		t.Errorf("volumes %+v: want the PVC results", p.Volumes)
	}
	if len(c.VolumeMounts) == 0 || c.VolumeMounts[0].Name != "results" || c.VolumeMounts[0].MountPath != "/results/s1" ||
		c.VolumeMounts[0].SubPath != "s1" {
		t.Errorf("mounts %+v: want the volume's directory s1 at /results/s1", c.VolumeMounts)
	}
	// No memory limit: no resources at all.
	j := testJob()
	j.MemoryBytes = 0
	raw, _ = j.Manifest()
	if strings.Contains(string(raw), "memory:") {
		t.Errorf("a Job without a memory limit has one:\n%s", raw)
	}
}

// What Kubernetes would refuse is refused here, naming the flag.
func TestJobRefusals(t *testing.T) {
	for _, c := range []struct {
		edit func(*Job)
		want string
	}{
		{func(j *Job) { j.Name = "Rumbench_Sweep" }, "--job-name"},
		{func(j *Job) { j.PVC = "" }, "--pvc is required"},
		{func(j *Job) { j.PVC = "No/Such" }, "--pvc"},
		{func(j *Job) { j.Image = " " }, "--image"},
		{func(j *Job) { j.Parallelism = 0 }, "--parallelism"},
		{func(j *Job) { j.BackoffLimitPerIndex = -1 }, "--backoff-limit-per-index"},
		{func(j *Job) { j.MountPath = "results" }, "not absolute"},
	} {
		j := testJob()
		c.edit(j)
		if _, err := j.Manifest(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one naming %q", j, err, c.want)
		}
	}
}

func TestMountPath(t *testing.T) {
	for in, want := range map[string]string{"/data/s1/": "/data/s1", "s1": "/results/s1", "a/../b": "/results/b"} {
		if got := MountPath(in); got != want {
			t.Errorf("MountPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// Each --out is a directory of its own on the volume (the mount's subPath),
// so one volume holds several sweeps and runs: on a real cluster the Job
// first mounted the volume's root at --out, and a second sweep's pods,
// finding the first one's sweep.json there, refused to start.
func TestVolumeDir(t *testing.T) {
	for in, want := range map[string]string{
		"/results/s1": "s1", "/results/a/b/": "a/b", "/results": "", "/": "", "/results/": "",
		"/data/s1": "data/s1", "/resultsX/s1": "resultsX/s1", "/results/../etc": "etc",
		MountPath("s2"): "s2", MountPath("a/../b"): "b",
	} {
		if got := VolumeDir(in); got != want {
			t.Errorf("VolumeDir(%q) = %q, want %q", in, got, want)
		}
	}
	// Two Jobs with two --out on one volume: two directories.
	a, b := testJob(), testJob()
	b.MountPath = "/results/s2"
	dirs := map[string]bool{}
	for _, j := range []*Job{a, b} {
		raw, err := j.Manifest()
		if err != nil {
			t.Fatal(err)
		}
		var job batchv1.Job
		if err := yaml.UnmarshalStrict(raw, &job); err != nil {
			t.Fatal(err)
		}
		m := job.Spec.Template.Spec.Containers[0].VolumeMounts[0]
		if m.SubPath == "" || m.MountPath != "/results/"+m.SubPath {
			t.Errorf("mount %+v: want the volume's directory named as --out", m)
		}
		dirs[m.SubPath] = true
	}
	if len(dirs) != 2 {
		t.Errorf("two Jobs with --out s1 and s2 share a volume directory: %v", dirs)
	}
}
