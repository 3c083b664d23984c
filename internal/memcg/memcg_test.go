package memcg

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A v2 hierarchy's files, faked in a directory: the limit goes to
// memory.max, swap is shut off, and the figures come from memory.peak,
// memory.events and memory.stat.
func TestV2Files(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "cgroup.controllers"), []byte("cpu io memory pids\n"), 0o644)
	os.WriteFile(filepath.Join(root, "cgroup.subtree_control"), []byte("memory\n"), 0o644)
	t.Setenv(RootEnv, root)
	ctl, err := Detect()
	if err != nil || ctl.Version != 2 || ctl.Parent != root {
		t.Fatalf("detect: %+v %v", ctl, err)
	}
	// Real v2 directories come with memory.swap.max; the fake one gets it
	// from the test before New writes it.
	g, err := ctl.New("pebble", 96<<20)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(g.Path, "memory.max")); string(b) != strconv.Itoa(96<<20) {
		t.Errorf("memory.max = %q", b)
	}
	os.WriteFile(filepath.Join(g.Path, "memory.peak"), []byte("50331648\n"), 0o644)
	os.WriteFile(filepath.Join(g.Path, "memory.events"), []byte("low 0\nhigh 0\nmax 17\noom 1\noom_kill 1\n"), 0o644)
	os.WriteFile(filepath.Join(g.Path, "memory.stat"), []byte("anon 1000\nfile 2000\n"), 0o644)
	st := g.Stats()
	if st.Version != 2 || st.LimitBytes != 96<<20 || *st.PeakBytes != 50331648 || *st.Failcnt != 17 || *st.OOMEvents != 1 || *st.OOMKills != 1 || *st.CacheBytes != 2000 || *st.AnonBytes != 1000 {
		t.Errorf("stats %+v", st)
	}
}

// A directory that is no cgroup, and a v2 hierarchy without the memory
// controller, are refused with a reason.
func TestRefusals(t *testing.T) {
	t.Setenv(RootEnv, t.TempDir())
	var ref *RefusedError
	if _, err := Detect(); !errors.As(err, &ref) || !strings.Contains(err.Error(), "not a cgroup directory") {
		t.Errorf("plain dir: %v", err)
	}
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "cgroup.controllers"), []byte("cpu io\n"), 0o644)
	t.Setenv(RootEnv, root)
	if _, err := Detect(); !errors.As(err, &ref) || !strings.Contains(err.Error(), "does not offer the memory controller") {
		t.Errorf("no memory controller: %v", err)
	}
}

// On the machine's own controller (root only): a cgroup is created with
// its limit, a process joins it and is charged, and the cgroup is removed.
func TestRealCgroup(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	ctl, err := Detect()
	if err != nil {
		t.Skipf("no memory controller here: %v", err)
	}
	g, err := ctl.New("test", 32<<20)
	if err != nil {
		t.Fatal(err)
	}
	// A shell joins the cgroup and writes 8 MB through the page cache.
	f := filepath.Join(t.TempDir(), "f")
	sh := exec.Command("sh", "-c", "echo $$ > "+g.ProcsFile()+" && head -c 8388608 /dev/zero > "+f)
	if out, err := sh.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	st := g.Stats()
	if st.PeakBytes == nil || *st.PeakBytes < 4<<20 || *st.PeakBytes > 32<<20 {
		t.Errorf("peak %v, want between 4 MB (what the shell wrote) and the 32 MB limit", st.PeakBytes)
	}
	if err := g.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(g.Path); !os.IsNotExist(err) {
		t.Errorf("cgroup %s still there: %v", g.Path, err)
	}
}
