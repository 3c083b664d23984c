package sysmetrics

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/prometheus/procfs"
)

// fakeProc writes /proc/PID/stat (and, when alive, io and one thread's
// status) for a process under root.
func fakeProc(t *testing.T, root string, pid, ppid int, state string, withIO, withTask bool) {
	t.Helper()
	dir := filepath.Join(root, fmt.Sprint(pid))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	stat := fmt.Sprintf("%d (srv) %s %d %d %d 0 -1 4194304 101 0 0 0 7 3 0 0 20 0 1 0 %d 3133440 389 18446744073709551615 1 1 1 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 1 1 1 1 1 1 1 0\n", pid, state, ppid, pid, pid, 1000+pid)
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("stat", stat)
	if withIO {
		write("io", "rchar: 1\nwchar: 1\nsyscr: 1\nsyscw: 1\nread_bytes: 4096\nwrite_bytes: 8192\ncancelled_write_bytes: 0\n")
	}
	if withTask {
		tdir := filepath.Join(dir, "task", fmt.Sprint(pid))
		if err := os.MkdirAll(tdir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(tdir, "status"), []byte("Name:\tsrv\nvoluntary_ctxt_switches:\t5\nnonvoluntary_ctxt_switches:\t2\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A server's process that exits between being listed and being read (its
// /proc/PID/io and /proc/PID/task gone) is an expected race: counted, never
// an error the user sees; the live members are still summed. A member that
// cannot be read for another reason is still reported.
func TestReadIgnoresExitedMembers(t *testing.T) {
	root := t.TempDir()
	fakeProc(t, root, 100, 1, "S", true, true)   // the server
	fakeProc(t, root, 101, 100, "S", true, true) // a live backend
	fakeProc(t, root, 102, 100, "S", false, false)
	fs, err := procfs.NewFS(root)
	if err != nil {
		t.Fatal(err)
	}
	r := &reader{fs: fs, root: 100, tree: true, procDir: root}
	spent := func() cpuTime { return cpuTime{} }
	rd := &reading{}
	r.readProcs(rd, true, false, spent)
	for _, f := range []field{fCS, fProcRead, fProcWrite, fCPU} {
		if rd.errs[f] != nil {
			t.Errorf("%s: error for a process that exited while read: %v", fieldKeys[f], rd.errs[f])
		}
	}
	if r.exitRaces == 0 {
		t.Error("the exited process was not counted")
	}
	if got := sum(rd.vals[fCS]); got != 14 {
		t.Errorf("context switches of the live members %d, want 14", got)
	}
	if got := sum(rd.vals[fProcWrite]); got != 2*8192 {
		t.Errorf("bytes written by the live members %d, want %d", got, 2*8192)
	}

	// A live process whose io cannot be read (a directory stands in for
	// a permission error) is reported.
	if err := os.Mkdir(filepath.Join(root, "102", "io"), 0o755); err != nil {
		t.Fatal(err)
	}
	fakeProc(t, root, 102, 100, "S", false, true)
	rd = &reading{}
	r.readProcs(rd, true, false, spent)
	if rd.errs[fProcRead] == nil {
		t.Error("a live member's unreadable io was not reported")
	}
}

func sum(m map[key]uint64) uint64 {
	var n uint64
	for _, v := range m {
		n += v
	}
	return n
}

// A member that exits between its stat and its smaps_rollup leaves PSS
// measured (the live members' sum), not unavailable for the step: at a
// step's end a server's backends exit as the step's connections close. The
// root's missing smaps_rollup is still an error.
func TestPSSIgnoresExitedMembers(t *testing.T) {
	root := t.TempDir()
	rollup := func(pid, pssKB int) {
		body := fmt.Sprintf("00400000-7fff0000 ---p 00000000 00:00 0 [rollup]\nRss: %d kB\nPss: %d kB\n", 2*pssKB, pssKB)
		if err := os.WriteFile(filepath.Join(root, fmt.Sprint(pid), "smaps_rollup"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fakeProc(t, root, 100, 1, "S", true, true)
	fakeProc(t, root, 101, 100, "S", true, true)
	fakeProc(t, root, 102, 100, "S", true, true) // exits before its smaps_rollup is read
	rollup(100, 300)
	rollup(101, 40)
	fs, err := procfs.NewFS(root)
	if err != nil {
		t.Fatal(err)
	}
	r := &reader{fs: fs, root: 100, tree: true, procDir: root}
	rd := &reading{}
	r.readProcs(rd, true, true, func() cpuTime { return cpuTime{} })
	if rd.pssErr != nil {
		t.Fatalf("PSS unavailable because a member exited: %v", rd.pssErr)
	}
	if rd.pss == nil || *rd.pss != 340*1024 {
		t.Fatalf("PSS %v, want the live members' %d", rd.pss, 340*1024)
	}

	if err := os.Remove(filepath.Join(root, "100", "smaps_rollup")); err != nil {
		t.Fatal(err)
	}
	rd = &reading{}
	r.readProcs(rd, true, true, func() cpuTime { return cpuTime{} })
	if rd.pssErr == nil {
		t.Error("the root's missing smaps_rollup was not reported")
	}
}
