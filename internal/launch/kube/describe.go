package kube

import (
	"fmt"
	"io"

	"rumbench/internal/units"
)

// Describe says what the manifest written to file holds and how to start
// and watch it; next says what to do when it has run.
func (j *Job) Describe(w io.Writer, file, next string) {
	mem := "no memory limit"
	if j.MemoryBytes > 0 {
		mem = fmt.Sprintf("%s memory each", units.WholeMiB(j.MemoryBytes, "MiB"))
	}
	dir := VolumeDir(j.MountPath)
	if dir == "" {
		dir = "its root"
	}
	fmt.Fprintf(w, "rumbench: wrote Job %s to %s: %d indexes, %d at a time, %s, results on PVC %s (directory %s) at %s\n", j.Name, file, j.Completions, j.Parallelism, mem, j.PVC, dir, j.MountPath)
	fmt.Fprintf(w, "start it:  kubectl apply -f %s\nwatch it:  kubectl get job %s -w\n%s\n", file, j.Name, next)
}
