package enginetest

import (
	"fmt"
	"strings"
	"testing"
)

// fatalRecorder is a test double for testing.TB that records Fatalf and
// Skipf instead of ending the test.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (r *fatalRecorder) Helper() {}
func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
}
func (r *fatalRecorder) Skipf(format string, args ...any) {
	r.msg = fmt.Sprintf(format, args...)
}

// OpenServer refuses a fixed database name before it reaches the server:
// another test process running the same test would drop it.
func TestOpenServerRefusesFixedName(t *testing.T) {
	r := &fatalRecorder{TB: t}
	if db := OpenServer(r, Target{Engine: "postgres", DSN: "postgres://nobody@127.0.0.1:1/", Database: "rumbench_test_fixed"}); db != nil {
		db.Close()
		t.Fatal("OpenServer opened a database without the process's suffix")
	}
	if !strings.Contains(r.msg, "no per-process suffix") || !strings.Contains(r.msg, "testdb.Name") {
		t.Fatalf("message %q does not name the problem and the fix", r.msg)
	}
}
