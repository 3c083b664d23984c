package launch

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestCompletionIndex(t *testing.T) {
	t.Setenv(IndexEnv, "3")
	for _, c := range []struct {
		value string
		n     int
		want  int
		err   string
	}{
		{"0", 4, 0, ""}, {"3", 4, 3, ""}, {"env", 4, 3, ""},
		{"4", 4, 0, "--cell 4 is out of range: there are 4, indexed 0 to 3"},
		{"env", 3, 0, "JOB_COMPLETION_INDEX 3 is out of range"},
		{"-1", 4, 0, "want an index from 0 to 3"},
		{"x", 4, 0, "want an index from 0 to 3, or --cell env"},
	} {
		got, err := CompletionIndex("cell", c.value, c.n)
		if c.err == "" && (err != nil || got != c.want) {
			t.Errorf("%q of %d: %d, %v; want %d", c.value, c.n, got, err, c.want)
		}
		if c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%q of %d: error %v, want %q", c.value, c.n, err, c.err)
		}
	}
	t.Setenv(IndexEnv, "")
	if _, err := CompletionIndex("cell", "env", 4); err == nil {
		t.Error("an empty JOB_COMPLETION_INDEX was taken as an index")
	}
}

func TestCompletionIndexUnset(t *testing.T) {
	t.Setenv(IndexEnv, "") // restored after the test
	os.Unsetenv(IndexEnv)
	if _, err := CompletionIndex("cell", "env", 4); err == nil || !strings.Contains(err.Error(), "JOB_COMPLETION_INDEX is not set") {
		t.Errorf("unset: %v", err)
	}
}

// The flags given come back as --name=value, slices joined, arrays
// repeated, in the flag set's order, the skipped ones left out.
func TestFlagArgs(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.StringSlice("engine", []string{"pebble"}, "")
	fs.IntSlice("indexes", nil, "")
	fs.StringArray("engine-opt", nil, "")
	fs.Int64("rows", 10, "")
	fs.Bool("verbose", false, "")
	fs.String("out", "", "")
	fs.String("kubernetes", "", "")
	if err := fs.Parse([]string{"--engine", "pebble,sqlite", "--indexes=0,3", "--engine-opt", "a=1,2", "--engine-opt", "b=3",
		"--verbose", "--out", "x", "--kubernetes", "job.yaml"}); err != nil {
		t.Fatal(err)
	}
	got := FlagArgs(fs, func(n string) bool { return n == "kubernetes" })
	want := []string{"--engine=pebble,sqlite", "--engine-opt=a=1,2", "--engine-opt=b=3", "--indexes=0,3", "--out=x", "--verbose=true"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	// Parsed again they set the same values.
	fs2 := pflag.NewFlagSet("t2", pflag.ContinueOnError)
	e := fs2.StringArray("engine-opt", nil, "")
	fs2.StringSlice("engine", nil, "")
	fs2.IntSlice("indexes", nil, "")
	fs2.Bool("verbose", false, "")
	fs2.String("out", "", "")
	if err := fs2.Parse(got); err != nil || !reflect.DeepEqual(*e, []string{"a=1,2", "b=3"}) {
		t.Errorf("reparse: %v, engine-opt %q", err, *e)
	}
}

// In a pod the container's limit is Kubernetes': the limit is parsed and
// kept for the budget and run.json, no cgroup is made or checked.
func TestSetupMemoryInPod(t *testing.T) {
	ms, err := SetupMemory(MemoryRequest{Limit: "64MB", Pod: true})
	if err != nil || ms.Limit != 64<<20 || ms.Ctl != nil || ms.Child {
		t.Fatalf("pod: %+v, %v", ms, err)
	}
	if c := ms.Config(); c == nil || c.LimitBytes != int64(64<<20) {
		t.Errorf("config %v", c)
	}
	// A preset's per-engine limits: the container holds all of the pod's
	// engines to the largest, and run.json says that, not the sizes.
	ms, err = SetupMemory(MemoryRequest{Limit: "53MB", PerEngine: map[string]int64{"sqlite": 25 << 20, "pebble": 53 << 20}, Pod: true})
	if err != nil {
		t.Fatal(err)
	}
	if c := ms.Config(); c == nil || c.LimitBytes != int64(53<<20) || c.LimitScope == "" {
		t.Errorf("per-engine limits in a pod: config %v", c)
	}
	if _, err := SetupMemory(MemoryRequest{Limit: "1MB", Pod: true}); err == nil || !strings.Contains(err.Error(), "at least 16MB") {
		t.Errorf("1MB: %v", err)
	}
	if _, err := SetupMemory(MemoryRequest{Child: ChildArgs{Cell: "x0-pad20-c1"}}); err == nil || !strings.Contains(err.Error(), "go with --child-engine") {
		t.Errorf("a child's flags without --child-engine: %v", err)
	}
}

// An engine's child process runs with few C allocator arenas (its caches
// and memtables are C memory), unless the environment chose a number.
func TestChildEnv(t *testing.T) {
	env := childEnv([]string{"A=1"})
	if len(env) != 2 || env[1] != "MALLOC_ARENA_MAX="+MallocArenas {
		t.Errorf("childEnv = %v", env)
	}
	if env := childEnv([]string{"MALLOC_ARENA_MAX=8"}); len(env) != 1 || env[0] != "MALLOC_ARENA_MAX=8" {
		t.Errorf("childEnv kept %v", env)
	}
}
