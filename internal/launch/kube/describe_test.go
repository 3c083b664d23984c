package kube

import (
	"strings"
	"testing"
)

func TestDescribe(t *testing.T) {
	j := &Job{Name: "rumbench-sweep", Completions: 4, Parallelism: 2, PVC: "rb", MountPath: "/results/s1", MemoryBytes: 2 << 30}
	var b strings.Builder
	j.Describe(&b, "j.yaml", "then: collect")
	want := "rumbench: wrote Job rumbench-sweep to j.yaml: 4 indexes, 2 at a time, 2048MiB memory each, results on PVC rb (directory s1) at /results/s1\n" +
		"start it:  kubectl apply -f j.yaml\nwatch it:  kubectl get job rumbench-sweep -w\nthen: collect\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	j.MemoryBytes, j.MountPath = 0, DefaultResults
	b.Reset()
	j.Describe(&b, "j.yaml", "")
	if !strings.Contains(b.String(), "no memory limit, results on PVC rb (directory its root) at /results\n") {
		t.Errorf("no limit, volume root: %s", b.String())
	}
}
