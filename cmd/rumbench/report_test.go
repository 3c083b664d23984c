package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

const fixtureRun = "../../internal/report/testdata/run1"

func TestReportBadInput(t *testing.T) {
	empty := t.TempDir()
	badSchema := t.TempDir()
	if err := os.WriteFile(filepath.Join(badSchema, "run.json"), []byte(`{"schema_version": 99}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		wants []string
		args  []string
	}{
		{"no dir", []string{"at least one DIR"}, []string{"report"}},
		{"missing dir", []string{"nope", "no such directory"}, []string{"report", filepath.Join(empty, "nope")}},
		{"no bundle", []string{empty, "no run bundle"}, []string{"report", empty}},
		{"unknown schema", []string{"schema_version 99"}, []string{"report", badSchema}},
		{"base too big", []string{"--base 3", "out of range", "1..2"}, []string{"report", fixtureRun, "--base", "3"}},
		{"base zero", []string{"--base 0", "out of range"}, []string{"report", fixtureRun, "--base", "0"}},
		{"format", []string{"--format", "xml", "md, csv or json"}, []string{"report", fixtureRun, "--format", "xml"}},
		{"html dir missing", []string{"--html", "/nonexistent-rumbench/x.html", "does not exist"}, []string{"report", fixtureRun, "--html", "/nonexistent-rumbench/x.html"}},
		{"html is a dir", []string{"--html", "is a directory"}, []string{"report", fixtureRun, "--html", empty}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantBadInput(t, c.wants, c.args...) })
	}
}

func TestReportFormats(t *testing.T) {
	for _, f := range []string{"md", "csv", "json"} {
		out, stderr, code := rb(t, "report", fixtureRun, "--format", f, "--base", "2")
		if code != 0 {
			t.Fatalf("--format %s: exit %d: %s", f, code, stderr)
		}
		if !strings.Contains(out, "sqlite") || !strings.Contains(out, "qr100") {
			t.Errorf("--format %s output lacks the runs or steps:\n%s", f, out)
		}
	}
}

// TestRunWritesReport checks that `rumbench run` ends with the comparison
// report and writes report.html in --out.
func TestRunWritesReport(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r")
	stdout, stderr, code := rb(t, "run", "--engine", "null", "--out", out, "--rows", "5000", "--churn-rows", "2000",
		"--steps", "l.i0,l.x,l.i1")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"# rumbench report: null", "## l.i1 (write step)", "throughput summary", "report.html"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("run output lacks %q:\n%s", want, stdout)
		}
	}
	if st, err := os.Stat(filepath.Join(out, "report.html")); err != nil || st.Size() == 0 {
		t.Fatalf("report.html not written: %v", err)
	}
}

// chromium returns the browser's path, skipping the test when it is absent
// unless CI or RUMBENCH_REQUIRE_CHROMIUM asks for it.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" || os.Getenv("RUMBENCH_REQUIRE_CHROMIUM") != "" {
		t.Fatal("chromium is required (CI or RUMBENCH_REQUIRE_CHROMIUM is set): apt-get install chromium")
	}
	t.Skip("chromium not installed (apt-get install chromium); set RUMBENCH_REQUIRE_CHROMIUM=1 to fail instead")
	return ""
}

func headless(t *testing.T, browser string, args ...string) (string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--no-first-run", "--disable-component-update", "--disable-sync", "--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, browser, append(base, args...)...)
	var so, se strings.Builder
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, se.String())
	}
	return so.String(), se.String()
}

// checkScript runs in a copy of the report: it counts the charts that laid
// out with a size and collects script errors, and writes the result into
// the DOM for --dump-dom. The report itself has no scripts.
const checkScript = `<script>
var rbErrors = [];
window.addEventListener("error", function (e) { rbErrors.push(String(e.message)); });
window.addEventListener("load", function () {
  var svgs = document.querySelectorAll("svg"), shown = 0;
  svgs.forEach(function (s) { var r = s.getBoundingClientRect(); if (r.width > 100 && r.height > 50 && s.querySelector("path")) shown++; });
  var pre = document.createElement("pre");
  pre.id = "rbcheck";
  pre.textContent = "svg=" + svgs.length + " shown=" + shown + " errors=" + rbErrors.length + " " + rbErrors.join("; ");
  document.body.appendChild(pre);
});
</script>`

func TestReportHTMLInChromium(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	dir := t.TempDir()
	html := filepath.Join(dir, "report.html")
	_, stderr, code := rb(t, "report", fixtureRun, "--html", html)
	if code != 0 {
		t.Fatalf("report --html: exit %d: %s", code, stderr)
	}
	m := regexp.MustCompile(`\((\d+) charts\)`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("report --html did not say how many charts it drew: %q", stderr)
	}
	// The fixture: the summary chart of every step's headline rate, then
	// per step its throughput charts (an operation each) and a latency
	// chart, each only with 3 points or more (see internal/report).
	const wantCharts = 14
	if n, _ := strconv.Atoi(m[1]); n != wantCharts {
		t.Fatalf("report drew %d charts, want %d", n, wantCharts)
	}
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	checked := filepath.Join(dir, "checked.html")
	withScript := strings.Replace(string(page), "</body>", checkScript+"</body>", 1)
	if err := os.WriteFile(checked, []byte(withScript), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, _ := headless(t, browser, "--virtual-time-budget=5000", "--dump-dom", "file://"+checked)
	res := regexp.MustCompile(`id="rbcheck">svg=(\d+) shown=(\d+) errors=(\d+)([^<]*)<`).FindStringSubmatch(dom)
	if res == nil {
		t.Fatalf("the check script did not run; DOM tail:\n%s", tail(dom, 2000))
	}
	if res[1] != strconv.Itoa(wantCharts) || res[2] != strconv.Itoa(wantCharts) || res[3] != "0" {
		t.Errorf("rendered %s <svg>, %s laid out with content, %s script errors%s; want %d, %d, 0", res[1], res[2], res[3], res[4], wantCharts, wantCharts)
	}

	// The report as shipped: no console errors, and a screenshot to look at.
	shot := filepath.Join(dir, "report.png")
	_, log := headless(t, browser, "--enable-logging=stderr", "--v=0", "--window-size=1280,2400",
		"--screenshot="+shot, "file://"+html)
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "Uncaught") || (strings.Contains(line, "CONSOLE") && strings.Contains(strings.ToLower(line), "error")) {
			t.Errorf("console error: %s", line)
		}
	}
	if st, err := os.Stat(shot); err != nil || st.Size() < 10000 {
		t.Errorf("screenshot %s missing or empty: %v", shot, err)
	}
	t.Logf("screenshot: %s", shot)
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// TestRunEndsWithVerdictQuiet: `run --quiet` prints no interval lines and
// no per-step tables, only the summary tables, and ends with the verdict;
// `rumbench report` of the same --out ends with the same verdict.
func TestRunEndsWithVerdictQuiet(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r")
	stdout, stderr, code := rb(t, "run", "--quiet", "--engine", "null,pebble", "--out", out, "--rows", "2000", "--churn-rows", "500",
		"--steps", "l.i0,l.x,l.i1", "--interval", "100ms")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	for _, bad := range []string{"[null l.i0]", "## l.i1 (write step)", "Legend:", "rumbench run: workload"} {
		if strings.Contains(stdout, bad) {
			t.Errorf("--quiet output holds %q:\n%s", bad, stdout)
		}
	}
	for _, want := range []string{"## headline rate relative to base", "## throughput summary", "report.html"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("--quiet output lacks %q:\n%s", want, stdout)
		}
	}
	verdict := func(s string) string {
		i := strings.LastIndex(s, "verdict (")
		if i < 0 {
			return ""
		}
		return strings.TrimSpace(s[i:])
	}
	v := verdict(stdout)
	if v == "" || !strings.HasSuffix(strings.TrimSpace(stdout), v) || !strings.Contains(v, "l.i0  ") || !strings.Contains(v, " ran ") {
		t.Fatalf("run output does not end with the verdict:\n%s", stdout)
	}
	// A screenful (about 55 lines; without --quiet about 185). A loaded
	// host adds lines that depend on it, not on --quiet: a warning per run
	// that ran on a busy host or shared its device, a stalls row per
	// stalled operation; they are left out of the count.
	if lines := strings.Count(stdout, "\n") - hostLines(stdout); lines > 60 {
		t.Errorf("--quiet printed %d lines (besides the host's warnings and stalls), want a screenful:\n%s", lines, stdout)
	}
	rep, stderr, code := rb(t, "report", out)
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	if got := verdict(rep); got != v {
		t.Errorf("report's verdict\n%s\nthe run's\n%s", got, v)
	}
}

// hostLines counts the lines of a report that depend on how loaded the
// host was: each warning with the blank line after it, and the rows of the
// stalls table.
func hostLines(report string) int {
	n := 0
	stalls := false
	for _, line := range strings.Split(report, "\n") {
		switch {
		case strings.HasPrefix(line, "WARNING: "):
			n += 2
		case strings.HasPrefix(line, "## "):
			stalls = strings.HasPrefix(line, "## stalls")
		case stalls && strings.HasPrefix(line, "| ") && !strings.HasPrefix(line, "| step ") && !strings.HasPrefix(line, "| ---"):
			n++
		}
	}
	return n
}
