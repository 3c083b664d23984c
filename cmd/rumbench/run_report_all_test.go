package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryWorkloadWritesTheReport (issue 48 item 7): a run of hotrow or
// linkbench writes report.html as the insert benchmark's does, and its
// verdict's "caution: a busy host (warning at the top)" comes only with
// that warning printed above it.
func TestEveryWorkloadWritesTheReport(t *testing.T) {
	t.Parallel()
	cases := map[string][]string{
		"hotrow":    {"--rows", "500", "--tables", "1,2", "--concurrency", "1,2", "--cell-seconds", "0.3"},
		"linkbench": {"--nodes", "2000", "--request-seconds", "1"},
	}
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			stdout, stderr, code := rb(t, append([]string{"run", name, "--engine", "pebble", "--interval", "200ms", "--out", out}, args...)...)
			if code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			if _, err := os.Stat(filepath.Join(out, "report.html")); err != nil {
				t.Errorf("no report.html: %v\nstdout:\n%s", err, stdout)
			}
			if !strings.Contains(stdout, "HTML report with") {
				t.Errorf("stdout does not name the HTML report:\n%s", stdout)
			}
			caution := strings.Index(stdout, "caution: a busy host (warning at the top)")
			warning := strings.Index(stdout, "ran on a busy host in")
			if caution >= 0 && (warning < 0 || warning > caution) {
				t.Errorf("the verdict's caution names a warning at the top that was not printed:\n%s", stdout)
			}
			if warning >= 0 && caution < 0 {
				t.Errorf("a busy-host warning without the verdict's caution:\n%s", stdout)
			}
		})
	}
}
