// Package hostinfo describes the machine a run uses, for run.json.
package hostinfo

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"

	"rumbench/internal/results"
)

// Read gathers what it can; fields it cannot read stay empty.
func Read() results.Host {
	h := results.Host{OS: runtime.GOOS, Arch: runtime.GOARCH, Cores: runtime.NumCPU()}
	h.Hostname, _ = os.Hostname()
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		h.Kernel = strings.TrimSpace(string(b))
	}
	h.CPUModel = firstField("/proc/cpuinfo", "model name")
	if kb := firstField("/proc/meminfo", "MemTotal"); kb != "" {
		if n, err := strconv.ParseInt(strings.Fields(kb)[0], 10, 64); err == nil {
			h.MemoryBytes = n * 1024
		}
	}
	return h
}

// firstField returns the value of the first "key: value" line with that key.
func firstField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
