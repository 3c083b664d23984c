// Package launch is where a run executes. There are three places, and this
// package holds what each needs so the command layer only wires flags:
//
//   - in this process (the default);
//   - in a child process of the same binary inside a fresh memory cgroup
//     (--memory-limit on one machine): Memory, Isolator, ManagedMemory;
//   - as one cell of a sweep or one shard of a run, started by Kubernetes as
//     a pod of an Indexed Job: CompletionIndex here, the Job manifest in
//     package launch/kube. The pod's memory limit is the container's, so no
//     cgroup of our own is made (MemoryRequest.Pod).
package launch
