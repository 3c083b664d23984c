package audit

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// userHZ is the unit of /proc/PID/stat's times (USER_HZ, 100 on Linux).
const userHZ = 100

// TreeReading is the cumulative accounting of a process tree at one
// moment, by the kernel's own rules: the root's own CPU and IO plus
// everything its reaped children (and theirs) did, which the kernel adds
// to the parent when it reaps a child (cutime/cstime in /proc/PID/stat,
// and /proc/PID/io of the whole thread group), plus each live
// descendant's own and reaped. A process that lived between two readings
// counts in full; none counts twice (up to the race of a child reaped
// between reading it and reading its parent).
type TreeReading struct {
	UserTicks, SysTicks int64
	// ReadBytes, WriteBytes, CancelledWriteBytes are /proc/PID/io's.
	ReadBytes, WriteBytes, CancelledWriteBytes int64
	// Procs counts the live processes read (the root included).
	Procs int
	// IOErr is why IO could not be read (then the IO fields are 0).
	IOErr string
}

type procStat struct {
	ppid                         int
	utime, stime, cutime, cstime int64
}

// readStat parses /proc/PID/stat: the fields after the command, which is
// in parentheses and may itself contain spaces and parentheses.
func readStat(path string) (procStat, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return procStat{}, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return procStat{}, fmt.Errorf("%s: no command", path)
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state): ppid is field 4, utime..cstime 14..17.
	if len(f) < 15 {
		return procStat{}, fmt.Errorf("%s: %d fields", path, len(f)+2)
	}
	var p procStat
	var e [5]error
	p.ppid, e[0] = strconv.Atoi(f[1])
	p.utime, e[1] = strconv.ParseInt(f[11], 10, 64)
	p.stime, e[2] = strconv.ParseInt(f[12], 10, 64)
	p.cutime, e[3] = strconv.ParseInt(f[13], 10, 64)
	p.cstime, e[4] = strconv.ParseInt(f[14], 10, 64)
	for _, err := range e {
		if err != nil {
			return procStat{}, fmt.Errorf("%s: %w", path, err)
		}
	}
	return p, nil
}

// readIO parses /proc/PID/io.
func readIO(path string) (r, w, c int64, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			continue
		}
		switch k {
		case "read_bytes":
			r = n
		case "write_bytes":
			w = n
		case "cancelled_write_bytes":
			c = n
		}
	}
	return r, w, c, nil
}

// ReadTree reads the tree rooted at root from the proc filesystem at
// procDir: descendants are found by their parent pid in every
// /proc/PID/stat. Children are read before the root, so a child reaped in
// between is counted twice rather than lost (at most a sample's worth of
// that child, which the next reading takes back).
func ReadTree(procDir string, root int) (TreeReading, error) {
	ents, err := os.ReadDir(procDir)
	if err != nil {
		return TreeReading{}, err
	}
	stats := map[int]procStat{}
	children := map[int][]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == root {
			continue
		}
		st, err := readStat(filepath.Join(procDir, e.Name(), "stat"))
		if err != nil {
			continue // gone between the listing and the read
		}
		stats[pid] = st
		children[st.ppid] = append(children[st.ppid], pid)
	}
	var t TreeReading
	var ioErr error
	add := func(pid int, st procStat) {
		t.UserTicks += st.utime + st.cutime
		t.SysTicks += st.stime + st.cstime
		t.Procs++
		r, w, c, err := readIO(filepath.Join(procDir, strconv.Itoa(pid), "io"))
		if err != nil {
			if !os.IsNotExist(err) && ioErr == nil {
				ioErr = err
			}
			return
		}
		t.ReadBytes += r
		t.WriteBytes += w
		t.CancelledWriteBytes += c
	}
	queue := append([]int(nil), children[root]...)
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		add(pid, stats[pid])
		queue = append(queue, children[pid]...)
	}
	st, err := readStat(filepath.Join(procDir, strconv.Itoa(root), "stat"))
	if err != nil {
		return TreeReading{}, fmt.Errorf("server root %d: %w", root, err)
	}
	add(root, st)
	if ioErr != nil {
		t.IOErr = ioErr.Error()
	}
	return t, nil
}

// FormatTree is one stamped line of the tree sampler's log.
func FormatTree(t TreeReading) string {
	s := fmt.Sprintf("tree user_ticks=%d sys_ticks=%d read_bytes=%d write_bytes=%d cancelled_write_bytes=%d procs=%d",
		t.UserTicks, t.SysTicks, t.ReadBytes, t.WriteBytes, t.CancelledWriteBytes, t.Procs)
	if t.IOErr != "" {
		s += " io=unreadable"
	}
	return s
}

// ParseTree reads the tree sampler's stamped log into samples (the
// differences of consecutive readings): cpu_us, usr_us, sys_us, and,
// when the IO was readable, rkb, wkb and ccwkb (KB of 1024 bytes).
func ParseTree(lines []Line) ([]Sample, error) {
	var pts []Point
	for _, l := range lines {
		f := strings.Fields(l.Text)
		if len(f) == 0 || f[0] != "tree" {
			continue
		}
		kv := map[string]int64{}
		ioOK := true
		for _, x := range f[1:] {
			k, v, _ := strings.Cut(x, "=")
			if k == "io" {
				ioOK = false
				continue
			}
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("tree: %q: %w", x, err)
			}
			kv[k] = n
		}
		usr := float64(kv["user_ticks"]) * 1e6 / userHZ
		sys := float64(kv["sys_ticks"]) * 1e6 / userHZ
		p := Point{T: l.T, V: map[string]float64{"usr_us": usr, "sys_us": sys, "cpu_us": usr + sys}}
		if ioOK {
			p.V["rkb"] = float64(kv["read_bytes"]) / 1024
			p.V["wkb"] = float64(kv["write_bytes"]) / 1024
			p.V["ccwkb"] = float64(kv["cancelled_write_bytes"]) / 1024
		}
		pts = append(pts, p)
	}
	return Deltas(pts), nil
}

// SampleTree reads the tree every interval and writes a stamped line per
// reading to w until stop is closed or the root is gone.
func SampleTree(procDir string, root int, every time.Duration, w *bufio.Writer, stop <-chan struct{}) error {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		at := time.Now()
		t, err := ReadTree(procDir, root)
		if err != nil {
			return err
		}
		if err := WriteLine(w, at, FormatTree(t)); err != nil {
			return err
		}
		select {
		case <-stop:
			return nil
		case <-tick.C:
		}
	}
}
