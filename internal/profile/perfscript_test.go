package profile

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

const script = `postgres  4242/4242  10101010 
	          5a1b2c hash_search_with_hash_value (/usr/lib/postgresql/15/bin/postgres)
	          5a0000 ExecInsert (/usr/lib/postgresql/15/bin/postgres)
	          400000 [unknown] (/usr/lib/postgresql/15/bin/postgres)

kworker/1:1H-kb    54/54    9000000
	ffffffff81b9764c iowrite16 ([kernel.kallsyms])

postgres  4243/4243  10000000
	          5a0000 ExecInsert (/usr/lib/postgresql/15/bin/postgres)
	          7f0000 std::map<int, int>::find(int const&) (/usr/lib/libfoo.so)

rb worker 77/78 5000000
	          1000 main.work (/tmp/rb)
`

// TestFromPerfScript: samples of the kept processes only, each with its
// period and stack (leaf first), unnamed frames named by their object,
// command names with spaces, and a profile pprof reads back.
func TestFromPerfScript(t *testing.T) {
	p, err := FromPerfScript(strings.NewReader(script), func(pid int, comm string) bool { return comm == "postgres" || pid == 77 })
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sample) != 3 {
		t.Fatalf("%d samples, want 3 (the kworker's left out)", len(p.Sample))
	}
	names := func(s *profile.Sample) string {
		var out []string
		for _, l := range s.Location {
			out = append(out, l.Line[0].Function.Name)
		}
		return strings.Join(out, ";")
	}
	want := []struct {
		stack  string
		period int64
		comm   string
		pid    int64
	}{
		{"hash_search_with_hash_value;ExecInsert;[/usr/lib/postgresql/15/bin/postgres]", 10101010, "postgres", 4242},
		{"ExecInsert;std::map<int, int>::find(int const&)", 10000000, "postgres", 4243},
		{"main.work", 5000000, "rb worker", 77},
	}
	for i, w := range want {
		s := p.Sample[i]
		if got := names(s); got != w.stack || s.Value[0] != 1 || s.Value[1] != w.period || s.Label["comm"][0] != w.comm || s.NumLabel["pid"][0] != w.pid {
			t.Errorf("sample %d: %s %v %v %v, want %s [1 %d] %s %d", i, got, s.Value, s.Label, s.NumLabel, w.stack, w.period, w.comm, w.pid)
		}
	}
	if len(p.Function) != 5 {
		t.Errorf("%d functions, want 5 (ExecInsert once)", len(p.Function))
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := profile.Parse(&buf)
	if err != nil || len(back.Sample) != 3 {
		t.Fatalf("read back: %v, %d samples", err, len(back.Sample))
	}
}

func TestFromPerfScriptBadInput(t *testing.T) {
	for _, in := range []string{"postgres 12/12 notanumber\n\t1 f (x)\n", "postgres 12/12 100\n\tnoparens\n"} {
		if _, err := FromPerfScript(strings.NewReader(in), func(int, string) bool { return true }); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}
