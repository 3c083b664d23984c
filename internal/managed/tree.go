package managed

import (
	"syscall"
)

// Tree lists pid and its descendants, from /proc. A server's processes may
// leave its process group (PostgreSQL's backends call setsid), so signals
// meant for the whole server go to its tree.
func Tree(pid int) []int {
	children := map[int][]int{}
	eachProc(func(p int, _ string, ppid, _ int) {
		children[ppid] = append(children[ppid], p)
	})
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}

// SignalTree sends sig to pid and its descendants.
func SignalTree(pid int, sig syscall.Signal) {
	for _, p := range Tree(pid) {
		syscall.Kill(p, sig)
	}
}
