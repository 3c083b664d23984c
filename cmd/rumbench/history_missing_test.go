package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"rumbench/internal/testdb"
)

// wantExactBadInput asserts exit code 2 and exactly the line want on
// stderr (and nothing on stdout).
func wantExactBadInput(t *testing.T, want string, args ...string) {
	t.Helper()
	stdout, stderr, code := rb(t, args...)
	if code != 2 || stderr != want+"\n" || stdout != "" {
		t.Fatalf("%v: exit %d, stdout %q, stderr %q; want exit 2 and the one line %q", args, code, stdout, stderr, want)
	}
}

// rbEnvOf runs the binary with env added to the environment.
func rbEnvOf(t *testing.T, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return so.String(), se.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return so.String(), se.String(), 0
}

func noHistoryLine(where, why string) string {
	return "rumbench: no history at " + where + " (" + why + "): record runs in it first with `rumbench run --history " + where +
		"` or `rumbench history add --history " + where + " DIR`, or give the right --history"
}

// A history that does not exist is an error for every history command but
// add (and run --history): exit 2, one line, and nothing created — a CI
// gate with a mistyped --history must not pass.
func TestHistoryMissingIsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "no", "such", "none.db")
	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range [][]string{{"check"}, {"list"}, {"show"}, {"export"}, {"calibrate"}, {"compare", "aaaaaa", "bbbbbb"}} {
		args := append([]string{"history"}, c...)
		wantExactBadInput(t, noHistoryLine(db, "no such file"), append(args, "--history", db)...)
		wantExactBadInput(t, noHistoryLine(empty, "a file without a history's tables"), append(args, "--history", empty)...)
		// The default history, when none is given.
		xdg := filepath.Join(dir, "xdg")
		def := filepath.Join(xdg, "rumbench", "history.db")
		t.Run(c[0]+" default", func(t *testing.T) {
			stdout, stderr, code := rbEnvOf(t, []string{"XDG_DATA_HOME=" + xdg}, args...)
			if want := noHistoryLine(def, "no such file") + "\n"; code != 2 || stderr != want || stdout != "" {
				t.Fatalf("%v: exit %d, stderr %q; want exit 2 and %q", args, code, stderr, want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "no")); !os.IsNotExist(err) {
		t.Fatalf("a refused history command created %s (%v)", filepath.Join(dir, "no"), err)
	}
	if _, err := os.Stat(filepath.Join(dir, "xdg")); !os.IsNotExist(err) {
		t.Fatalf("a refused history command created the default history's directory (%v)", err)
	}
	if b, err := os.ReadFile(empty); err != nil || len(b) != 0 {
		t.Fatalf("a refused history command wrote into an empty file: %d bytes (%v)", len(b), err)
	}
	// add creates it, and then check reads it.
	if _, stderr, code := rb(t, "history", "add", "--history", db, filepath.Join("..", "..", "internal", "report", "testdata", "pebble-small")); code != 0 {
		t.Fatalf("history add: exit %d: %s", code, stderr)
	}
	if stdout, stderr, code := rb(t, "history", "check", "--history", db); code != 0 || !strings.Contains(stdout, "history check: ") {
		t.Fatalf("history check after add: exit %d:\n%s%s", code, stdout, stderr)
	}
}

// A PostgreSQL database without a history's tables is refused the same
// way, and left without them.
func TestHistoryMissingPostgres(t *testing.T) {
	t.Parallel()
	admin := pgAdmin(t)
	name := testdb.Name(t, "rb_nohist")
	freshDB(t, admin, name)
	if _, err := admin.Exec(context.Background(), "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	cfg := admin.Config()
	dsn := "postgres://" + cfg.User + "@" + cfg.Host + ":" + strconv.Itoa(int(cfg.Port)) + "/" + name
	where := "postgres://" + cfg.User + "@" + cfg.Host + ":" + strconv.Itoa(int(cfg.Port)) + "/" + name
	wantExactBadInput(t, noHistoryLine(where, "a database without a history's tables"), "history", "check", "--history", dsn)
	c := connectTo(t, admin, name)
	defer c.Close(context.Background())
	var n int
	if err := c.QueryRow(context.Background(), `SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("history check made %d tables in %s (%v)", n, name, err)
	}
}
