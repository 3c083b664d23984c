package testdb

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestNameKeepsBaseAndSuffix(t *testing.T) {
	a, b := Name(t, "rumbench_hotrow_test"), Name(t, "rumbench_hotrow_test")
	if a != b {
		t.Fatalf("two calls in one process gave %s and %s", a, b)
	}
	if !strings.HasPrefix(a, "rumbench_hotrow_test_p") || !plainName.MatchString(a) {
		t.Fatalf("name %s does not start with its base or is not a plain identifier", a)
	}
	if want := fmt.Sprintf("_p%d_", os.Getpid()); !strings.Contains(a, want) {
		t.Fatalf("name %s does not carry the pid (%s)", a, want)
	}
	if !Owned(a) || !Owned(a+"_x0_pad20_c1") || Owned("rumbench_hotrow_test") || Owned("rumbench_hotrow_test_p1_abcd") {
		t.Fatal("Owned does not tell this process's names from others")
	}
}

// fatalRecorder is a test double for testing.TB that records Fatalf
// instead of ending the test, to check Name's refusals.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (r *fatalRecorder) Helper() {}
func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
}

func TestNameRefusesBadBase(t *testing.T) {
	for base, want := range map[string]string{
		"":                      "not a lowercase identifier",
		"Rumbench":              "not a lowercase identifier",
		"1db":                   "not a lowercase identifier",
		"rb-x":                  "not a lowercase identifier",
		"rb; DROP":              "not a lowercase identifier",
		strings.Repeat("a", 60): "over the servers' 63",
	} {
		r := &fatalRecorder{TB: t}
		if got := Name(r, base); got != "" || !strings.Contains(r.msg, want) {
			t.Errorf("Name(%q) = %q, message %q; want a failure saying %q", base, got, r.msg, want)
		}
	}
	longest := strings.Repeat("a", MaxLen-len(Suffix()))
	if got := Name(t, longest); len(got) != MaxLen {
		t.Errorf("a base that just fits gave %d characters", len(got))
	}
}

// TestSuffixDiffersBetweenProcesses runs this test binary twice: each
// process prints its suffix, and the two differ.
func TestSuffixDiffersBetweenProcesses(t *testing.T) {
	if os.Getenv("TESTDB_PRINT_SUFFIX") != "" {
		fmt.Print(Suffix())
		return
	}
	var got [2]string
	for i := range got {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSuffixDiffersBetweenProcesses$")
		cmd.Env = append(os.Environ(), "TESTDB_PRINT_SUFFIX=1")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("child %d: %v", i, err)
		}
		got[i], _, _ = strings.Cut(string(out), "PASS")
		if !strings.HasPrefix(got[i], "_p") {
			t.Fatalf("child %d printed %q, want its suffix", i, out)
		}
	}
	if got[0] == got[1] || got[0] == Suffix() {
		t.Fatalf("suffixes %s, %s and this process's %s are not all different", got[0], got[1], Suffix())
	}
}
