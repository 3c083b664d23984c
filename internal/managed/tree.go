package managed

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Tree lists pid and its descendants, from /proc. A server's processes may
// leave its process group (PostgreSQL's backends call setsid), so signals
// meant for the whole server go to its tree.
func Tree(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return []int{pid}
	}
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(b), ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 2 {
			continue
		}
		if pp, err := strconv.Atoi(f[1]); err == nil {
			children[pp] = append(children[pp], p)
		}
	}
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
