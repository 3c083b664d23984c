package kube

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"rumbench/internal/launch"
)

// apiJob is the Job built from the Kubernetes API types, as rumbench
// built it before it carried its own copy of the fields: the reference the
// manifest must decode to.
func apiJob(j *Job) *batchv1.Job {
	i32 := func(n int) *int32 { v := int32(n); return &v }
	indexed := batchv1.IndexedCompletion
	replace := batchv1.Failed
	labels := map[string]string{
		"app.kubernetes.io/name":      "rumbench",
		"app.kubernetes.io/component": j.Component,
		"app.kubernetes.io/instance":  j.Name,
	}
	c := corev1.Container{
		Name: "rumbench", Image: j.Image, Command: []string{"rumbench"}, Args: j.Args,
		Env: []corev1.EnvVar{
			{Name: launch.IndexEnv, ValueFrom: &corev1.EnvVarSource{
				FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.annotations['" + indexAnnotation + "']"}}},
			{Name: "TMPDIR", Value: ScratchDir},
		},
		VolumeMounts: []corev1.VolumeMount{{Name: "results", MountPath: j.MountPath, SubPath: VolumeDir(j.MountPath)}, {Name: "scratch", MountPath: ScratchDir}},
	}
	if j.DSNSecret != "" {
		c.Env = append(c.Env, corev1.EnvVar{Name: DSNEnv, ValueFrom: &corev1.EnvVarSource{
			SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: j.DSNSecret}, Key: "dsn"}}})
	}
	if j.JobUIDEnv {
		c.Env = append(c.Env, corev1.EnvVar{Name: JobUIDEnv, ValueFrom: &corev1.EnvVarSource{
			FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels['" + jobUIDLabel + "']"}}})
	}
	if j.MemoryBytes > 0 {
		q := *resource.NewQuantity(j.MemoryBytes, resource.BinarySI)
		c.Resources = corev1.ResourceRequirements{
			Limits:   corev1.ResourceList{corev1.ResourceMemory: q},
			Requests: corev1.ResourceList{corev1.ResourceMemory: q},
		}
	}
	job := &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: j.Name, Labels: labels},
		Spec: batchv1.JobSpec{
			CompletionMode: &indexed, Completions: i32(j.Completions), Parallelism: i32(j.Parallelism),
			BackoffLimitPerIndex: i32(j.BackoffLimitPerIndex), PodReplacementPolicy: &replace,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
						PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
							Weight: 100,
							PodAffinityTerm: corev1.PodAffinityTerm{
								LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/instance": j.Name}},
								TopologyKey:   "kubernetes.io/hostname",
							},
						}},
					}},
					Containers: []corev1.Container{c},
					Volumes: []corev1.Volume{
						{Name: "results", VolumeSource: corev1.VolumeSource{
							PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: j.PVC}}},
						{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
					},
				},
			},
		},
	}
	if j.HostNetwork {
		job.Spec.Template.Spec.HostNetwork = true
		job.Spec.Template.Spec.DNSPolicy = corev1.DNSClusterFirstWithHostNet
	}
	return job
}

// decodeStrict reads a manifest into the Kubernetes Job type, refusing
// any field the API does not know.
func decodeStrict(t *testing.T, raw []byte) *batchv1.Job {
	t.Helper()
	var job batchv1.Job
	if err := yaml.UnmarshalStrict(raw, &job); err != nil {
		t.Fatalf("strict decode: %v\n%s", err, raw)
	}
	return &job
}

// generic reads YAML as nested maps, leaving out the empty values the API
// types write for fields rumbench never sets (creationTimestamp: null,
// status: {}).
func generic(t *testing.T, raw []byte) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	var prune func(any) any
	prune = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if e = prune(e); e == nil {
					delete(x, k)
				} else {
					x[k] = e
				}
			}
			if len(x) == 0 {
				return nil
			}
		case []any:
			for i, e := range x {
				x[i] = prune(e)
			}
		}
		return v
	}
	return prune(v)
}

// Every variant of the manifest decodes, strictly, to exactly the Job the
// Kubernetes API types give for the same settings: no field lost, renamed
// or added by rumbench's own copy of the schema.
func TestManifestEqualsAPITypesJob(t *testing.T) {
	variants := map[string]func(*Job){
		"as tested":        func(*Job) {},
		"no memory limit":  func(j *Job) { j.MemoryBytes = 0 },
		"dsn secret":       func(j *Job) { j.DSNSecret = "pg-dsn" },
		"job uid":          func(j *Job) { j.JobUIDEnv = true; j.Component = "run" },
		"no args, backoff": func(j *Job) { j.Args = nil; j.BackoffLimitPerIndex = 0 },
		"odd memory":       func(j *Job) { j.MemoryBytes = 1_000_000_007 },
		"host network":     func(j *Job) { j.HostNetwork = true },
		"volume root":      func(j *Job) { j.MountPath = DefaultResults },
		"out elsewhere":    func(j *Job) { j.MountPath = "/data/bench/s1" },
		"everything":       func(j *Job) { j.DSNSecret = "s.x"; j.JobUIDEnv = true; j.MemoryBytes = 5 << 30; j.HostNetwork = true },
	}
	for name, edit := range variants {
		j := testJob()
		edit(j)
		raw, err := j.Manifest()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, err := yaml.Marshal(apiJob(j))
		if err != nil {
			t.Fatal(err)
		}
		got, ref := decodeStrict(t, raw), decodeStrict(t, want)
		if !reflect.DeepEqual(got, ref) {
			t.Errorf("%s: the manifest decodes to another Job than the API types give\nmanifest:\n%s\nAPI types:\n%s", name, raw, want)
		}
		// Field names match case too (Go's JSON decoding above ignores
		// case, the API server does not).
		if g, w := generic(t, raw), generic(t, want); !reflect.DeepEqual(g, w) {
			t.Errorf("%s: the manifest's fields differ from the API types'\nmanifest:\n%s\nAPI types:\n%s", name, raw, want)
		}
	}
}

// Memory quantities are written as Kubernetes writes them.
func TestBinaryQuantityAsKubernetes(t *testing.T) {
	values := []int64{1, 999, 1000, 1023, 1024, 1025, 1536, 1 << 20, 3 << 29, 1_000_000, 1_000_000_000, 1<<30 + 1, 5 << 40, 7 << 50, 1 << 60, 3 << 60, 1<<63 - 1}
	for _, n := range values {
		want := resource.NewQuantity(n, resource.BinarySI).String()
		if got := binaryQuantity(n); got != want {
			t.Errorf("binaryQuantity(%d) = %q, Kubernetes writes %q", n, got, want)
		}
	}
}

// A name is refused exactly when the API server would refuse it.
func TestNamesAsKubernetes(t *testing.T) {
	long := func(n int) string { return strings.Repeat("a", n) }
	names := []string{"", "a", "rumbench-sweep", "Rumbench", "rumbench_sweep", "-a", "a-", "a.b", "a..b", ".a", "a.", "1-2", "a b",
		"é", long(63), long(64), long(253), long(254), strings.Repeat(long(63)+".", 3) + long(61), strings.Repeat(long(63)+".", 4)}
	for _, s := range names {
		if got, want := len(dns1123Label(s)) == 0, len(validation.IsDNS1123Label(s)) == 0; got != want {
			t.Errorf("label %q: accepted %v, Kubernetes %v", s, got, want)
		}
		if got, want := len(dns1123Subdomain(s)) == 0, len(validation.IsDNS1123Subdomain(s)) == 0; got != want {
			t.Errorf("subdomain %q: accepted %v, Kubernetes %v", s, got, want)
		}
	}
	if errs := dns1123Label(long(64)); len(errs) != 1 || !strings.Contains(fmt.Sprint(errs), "63") {
		t.Errorf("a 64-character name: %v, want the length named", errs)
	}
}
