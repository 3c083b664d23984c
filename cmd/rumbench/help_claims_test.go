package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// helpTexts is every help text of the command tree: each command's
// Short, Long and Example and each flag's usage, keyed by where it is.
func helpTexts(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		p := c.CommandPath()
		out[p+" (short)"] = c.Short
		out[p+" (long)"] = c.Long
		out[p+" (example)"] = c.Example
		for _, fs := range []*pflag.FlagSet{c.LocalFlags(), c.InheritedFlags()} {
			fs.VisitAll(func(f *pflag.Flag) { out[p+" --"+f.Name] = f.Usage })
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(newRootCmd())
	// The workloads' and presets' descriptions.
	stdout, stderr, code := rb(t, "workloads")
	if code != 0 {
		t.Fatalf("workloads: exit %d: %s", code, stderr)
	}
	out["rumbench workloads (output)"] = stdout
	return out
}

// A backquoted word in a flag's usage becomes its value's name in the help
// (pflag.UnquoteUsage): `--history rumbench history` was one. No usage has
// a backquote.
func TestHelpFlagUsageHasNoBackquote(t *testing.T) {
	for where, text := range helpTexts(t) {
		if strings.Contains(where, " --") && strings.Contains(text, "`") {
			t.Errorf("%s: the usage has a backquote, which pflag turns into the value's name: %q", where, text)
		}
	}
	help := helpOf(t, "run")
	if strings.Contains(help, "--history rumbench history") {
		t.Errorf("run --help shows a placeholder value name for --history:\n%s", help)
	}
}

// slug is GitHub's anchor of a Markdown heading.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// headings reads a doc's Markdown headings.
func headings(t *testing.T, file string) []string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var hs []string
	inCode := false
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "```") {
			inCode = !inCode
		}
		if !inCode && strings.HasPrefix(l, "#") {
			hs = append(hs, strings.TrimSpace(strings.TrimLeft(l, "#")))
		}
	}
	return hs
}

// Every document a help text cites exists, with the section it names
// (docs/X.md#anchor, or "docs/X.md, Heading"); none cites numbered design
// sections, which docs/design.md does not have.
func TestHelpCitedDocsExist(t *testing.T) {
	root := filepath.Join("..", "..")
	cite := regexp.MustCompile(`docs/([a-z0-9-]+\.md)(#[a-z0-9_-]+|, [A-Z][^;)]*)?`)
	checked := 0
	for where, text := range helpTexts(t) {
		if strings.Contains(text, "§") {
			t.Errorf("%s cites a numbered section (%q): docs/*.md have none; cite docs/FILE.md#anchor", where, text)
		}
		for _, m := range cite.FindAllStringSubmatch(text, -1) {
			checked++
			file := filepath.Join(root, "docs", m[1])
			if _, err := os.Stat(file); err != nil {
				t.Errorf("%s cites %s, which does not exist", where, m[0])
				continue
			}
			hs := headings(t, file)
			switch {
			case strings.HasPrefix(m[2], "#"):
				found := false
				for _, h := range hs {
					found = found || slug(h) == m[2][1:]
				}
				if !found {
					t.Errorf("%s cites %s: %s has no heading with anchor %s", where, m[0], m[1], m[2])
				}
			case strings.HasPrefix(m[2], ", "):
				name := strings.ToLower(strings.TrimSpace(m[2][2:]))
				found := false
				for _, h := range hs {
					found = found || strings.HasPrefix(strings.ToLower(h), name)
				}
				if !found {
					t.Errorf("%s cites %s: %s has no heading %q", where, m[0], m[1], m[2][2:])
				}
			}
		}
	}
	if checked < 10 {
		t.Fatalf("found %d citations of docs in the help, want at least 10 (is the pattern right?)", checked)
	}
}

// --database says what happens to the database: created when missing,
// kept after the run (docs/servers.md), dropped only when asked.
func TestHelpDatabaseIsKept(t *testing.T) {
	for where, text := range helpTexts(t) {
		if !strings.HasSuffix(where, " --database") || strings.HasPrefix(where, "rumbench verify") {
			continue
		}
		if strings.Contains(text, "creates and drops") || !strings.Contains(text, "kept after the run") || !strings.Contains(text, "drop_database=true") {
			t.Errorf("%s: %q does not say the database is kept (drop_database=true drops it)", where, text)
		}
	}
}

// -v means --verbose wherever it is a flag; the version is --version only.
func TestHelpShortVIsVerbose(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Shorthand == "v" && f.Name != "verbose" {
				t.Errorf("%s: -v is --%s, elsewhere --verbose", c.CommandPath(), f.Name)
			}
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(newRootCmd())
	if stdout, stderr, code := rb(t, "--version"); code != 0 || !strings.HasPrefix(stdout, "rumbench version ") {
		t.Fatalf("--version: exit %d: %s%s", code, stdout, stderr)
	}
	wantExactBadInput(t, "rumbench: unknown shorthand flag: 'v' in -v: -v is --verbose, for rumbench engines and rumbench sweep; the version is rumbench --version", "-v")
	if stdout, _, code := rb(t, "engines", "-v"); code != 0 || !strings.Contains(stdout, "settings (--engine-opt key=value)") {
		t.Fatalf("engines -v: exit %d:\n%s", code, stdout)
	}
}

// A mistyped flag gets the flags it is a near miss of.
func TestFlagDidYouMean(t *testing.T) {
	wantExactBadInput(t, "rumbench: unknown flag: --engin; did you mean --engine? (see `rumbench run --help`)", "run", "--engin", "pebble")
	wantExactBadInput(t, "rumbench: unknown flag: --engin; did you mean --engine? (see `rumbench run ibench --help`)", "run", "ibench", "--engin", "pebble")
	wantExactBadInput(t, "rumbench: unknown flag: --histroy; did you mean --history? (see `rumbench history check --help`)", "history", "check", "--histroy", "x")
	wantExactBadInput(t, "rumbench: unknown flag: --fromat; did you mean --format? (see `rumbench report --help`)", "report", "--fromat", "md", "x")
	wantExactBadInput(t, "rumbench: unknown flag: --zzzz (see `rumbench engines --help`)", "engines", "--zzzz")
}

// `rumbench engines` says a server engine whose server does not answer is
// not reachable, naming the address, rather than available.
func TestEnginesSaysServerNotReachable(t *testing.T) {
	cmd := []string{"RUMBENCH_MONGO_DSN=mongodb://127.0.0.1:1", "RUMBENCH_MYSQL_DSN=root@tcp(127.0.0.1:2)/", "RUMBENCH_PG_DSN=postgres://u@127.0.0.1:3/x"}
	stdout, stderr, code := rbEnvOf(t, cmd, "engines")
	if code != 0 {
		t.Fatalf("engines: exit %d: %s", code, stderr)
	}
	for eng, addr := range map[string]string{"mongodb": "127.0.0.1:1", "innodb": "127.0.0.1:2", "postgres": "127.0.0.1:3"} {
		line := ""
		for _, l := range strings.Split(stdout, "\n") {
			if f := strings.Fields(l); len(f) > 0 && f[0] == eng {
				line = l
			}
		}
		if !strings.Contains(line, "not reachable at "+addr+" (start the server there, or give its address with --dsn)") {
			t.Errorf("engines: %s's line does not say it is not reachable at %s:\n%s", eng, addr, line)
		}
	}
	if addr := pgReachable(); addr != "" {
		stdout, _, _ = rb(t, "engines")
		if !strings.Contains(stdout, "yes (server at "+addr+")") {
			t.Errorf("engines: the reachable PostgreSQL at %s is not listed as available:\n%s", addr, stdout)
		}
	}
}

// history's --label selects what the runs were recorded under: a variant's
// label (--engine LABEL=ENGINE), else the engine's name.
func TestHistoryLabelHelpIsWhatIsRecorded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "h.db")
	if _, stderr, code := rb(t, "run", "--engine", "fast=null", "--rows", "1000", "--steps", "l.i0", "--quiet", "--out", filepath.Join(dir, "r"), "--history", db); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	stdout, _, code := rb(t, "history", "list", "--history", db, "--label", "fast")
	if code != 0 || !strings.Contains(stdout, " fast ") {
		t.Fatalf("history list --label fast: exit %d, want the run:\n%s", code, stdout)
	}
	var help bytes.Buffer
	help.WriteString(helpOf(t, "history", "list"))
	if !strings.Contains(help.String(), "LABEL of --engine LABEL=ENGINE") || strings.Contains(help.String(), "today") {
		t.Fatalf("history list --help does not say what --label selects:\n%s", help.String())
	}
}
