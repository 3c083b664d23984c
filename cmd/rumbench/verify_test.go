package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"rumbench/internal/results"
	"rumbench/internal/testdb"
)

// TestVerifyEmbeddedCreatesNothing (issue 34): verify of an embedded
// engine's data that is not there (a missing dir, an empty one, one with
// only rumbench's marker) exits 2 with one line and creates nothing; verify
// of a run's data dir passes and leaves every file as it was.
func TestVerifyEmbeddedCreatesNothing(t *testing.T) {
	for _, e := range append([]string{"pebble", "sqlite", "bbolt"}, binaryTags...) {
		t.Run(e, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			missing := filepath.Join(dir, "missing")
			wantBadInput(t, []string{"--data-dir", missing, "does not exist"}, "verify", "--engine", e, "--data-dir", missing)
			if _, err := os.Stat(missing); err == nil {
				t.Errorf("verify created the missing --data-dir %s", missing)
			}
			empty := filepath.Join(dir, "empty")
			os.Mkdir(empty, 0o755)
			wantBadInput(t, []string{"--data-dir", empty, "no data written by rumbench"}, "verify", "--engine", e, "--data-dir", empty)
			if ents, _ := os.ReadDir(empty); len(ents) != 0 {
				t.Errorf("verify wrote %d entries into the empty --data-dir (%s...)", len(ents), ents[0].Name())
			}
			// The marker alone: a run that stopped before its engine opened.
			marked := filepath.Join(dir, "marked")
			os.Mkdir(marked, 0o755)
			os.WriteFile(filepath.Join(marked, "RUMBENCH_ENGINE"), []byte(e+"\n"), 0o644)
			wantBadInput(t, []string{marked, "give the data dir of a " + e + " run"}, "verify", "--engine", e, "--data-dir", marked)
			if ents, _ := os.ReadDir(marked); len(ents) != 1 {
				t.Errorf("verify wrote into a --data-dir holding only the marker: %d entries", len(ents))
			}

			data := filepath.Join(dir, "data")
			if _, stderr, code := rb(t, "run", "--engine", e, "--data-dir", data, "--out", filepath.Join(dir, "out"),
				"--rows", "500", "--clients", "1", "--churn-rows", "100", "--steps", "l.i0,l.x,l.i1"); code != 0 {
				t.Fatalf("run: exit %d: %s", code, stderr)
			}
			before := snapshot(t, data)
			stdout, stderr, code := rb(t, "verify", "--engine", e, "--data-dir", data)
			if code != 0 || !strings.Contains(stdout, "OK: 1 tables") {
				t.Fatalf("verify of the run's data: exit %d: %s%s", code, stdout, stderr)
			}
			after := snapshot(t, data)
			for p, b := range after {
				if a, ok := before[p]; !ok {
					t.Errorf("verify created %s", p)
				} else if a != b {
					t.Errorf("verify changed %s", p)
				}
			}
			for p := range before {
				if _, ok := after[p]; !ok {
					t.Errorf("verify removed %s", p)
				}
			}
		})
	}
}

// TestVerifyServerCreatesNothing (issue 34): verify of a database that does
// not exist, or exists without rumbench tables, exits 2 with one line and
// creates neither the database nor a table in it.
func TestVerifyServerCreatesNothing(t *testing.T) {
	t.Run("postgres", func(t *testing.T) {
		admin := pgAdmin(t)
		ctx := context.Background()
		missing, empty := testdb.Name(t, "rb_vfy_missing"), testdb.Name(t, "rb_vfy_empty")
		freshDB(t, admin, missing)
		freshDB(t, admin, empty)
		wantBadInput(t, []string{"database " + missing, "does not exist", "--database"}, "verify", "--engine", "postgres", "--dsn", pgDSN(), "--database", missing)
		var exists bool
		if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", missing).Scan(&exists); err != nil || exists {
			t.Fatalf("verify created database %s (%v)", missing, err)
		}
		if _, err := admin.Exec(ctx, "CREATE DATABASE "+empty); err != nil {
			t.Fatal(err)
		}
		wantBadInput(t, []string{"database " + empty, "no rumbench tables", "--database"}, "verify", "--engine", "postgres", "--dsn", pgDSN(), "--database", empty)
		c := connectTo(t, admin, empty)
		var tables int
		if err := c.QueryRow(ctx, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").Scan(&tables); err != nil || tables != 0 {
			t.Fatalf("verify created %d tables in %s (%v)", tables, empty, err)
		}
	})
	t.Run("innodb", func(t *testing.T) {
		admin, dsn := mariaAdmin(t)
		missing, empty := testdb.Name(t, "rb_vfy_missing"), testdb.Name(t, "rb_vfy_empty")
		freshMariaDB(t, admin, missing)
		freshMariaDB(t, admin, empty)
		wantBadInput(t, []string{"database " + missing, "does not exist", "--database"}, "verify", "--engine", "innodb", "--dsn", dsn, "--database", missing)
		var n int
		if err := admin.QueryRow("SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", missing).Scan(&n); err != nil || n != 0 {
			t.Fatalf("verify created database %s (%v)", missing, err)
		}
		if _, err := admin.Exec("CREATE DATABASE " + empty); err != nil {
			t.Fatal(err)
		}
		wantBadInput(t, []string{"database " + empty, "no rumbench tables", "--database"}, "verify", "--engine", "innodb", "--dsn", dsn, "--database", empty)
		if err := admin.QueryRow("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?", empty).Scan(&n); err != nil || n != 0 {
			t.Fatalf("verify created %d tables in %s (%v)", n, empty, err)
		}
	})
}

// TestSetupErrorsAreBadInput (issue 34): a server that cannot be reached,
// refused credentials and a --data-dir that is a file are the user's to
// fix: exit 2, the message once on one line with no stacked prefixes,
// naming the fix, never the password.
func TestSetupErrorsAreBadInput(t *testing.T) {
	t.Parallel()
	const pw = "s3cretRb34"
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	type tc struct {
		name  string
		wants []string
		args  []string
	}
	out := func(n string) []string {
		return []string{"--out", filepath.Join(dir, n), "--rows", "100", "--steps", "l.i0"}
	}
	cases := []tc{
		{"postgres closed port", []string{"postgres: cannot reach the server at 127.0.0.1:1", "--dsn"},
			append([]string{"run", "--engine", "postgres", "--dsn", "postgres://postgres:" + pw + "@127.0.0.1:1/postgres?connect_timeout=5"}, out("o1")...)},
		{"innodb closed port", []string{"innodb: cannot reach the server at tcp(127.0.0.1:1)", "--dsn"},
			append([]string{"run", "--engine", "innodb", "--dsn", "root:" + pw + "@tcp(127.0.0.1:1)/?timeout=5s"}, out("o2")...)},
		{"verify closed port", []string{"postgres: cannot reach the server", "--dsn"},
			[]string{"verify", "--engine", "postgres", "--dsn", "postgres://postgres:" + pw + "@127.0.0.1:1/postgres?connect_timeout=5"}},
		{"data dir is a file", []string{"--data-dir " + file, "not a directory", "give a directory"},
			append([]string{"run", "--engine", "pebble", "--data-dir", file}, out("o3")...)},
		{"data dir under a file", []string{"not a directory"},
			append([]string{"run", "--engine", "sqlite", "--data-dir", filepath.Join(file, "sub")}, out("o4")...)},
		{"data dir cannot be created", []string{"--data-dir /proc/rumbench-no", "cannot be created", "give a directory"},
			append([]string{"run", "--engine", "bbolt", "--data-dir", "/proc/rumbench-no"}, out("o5")...)},
	}
	if pg := pgReachable(); pg != "" {
		cases = append(cases, tc{"postgres unknown role", []string{"authentication failed", "rb_nosuchrole", "--dsn"},
			append([]string{"run", "--engine", "postgres", "--dsn", "postgres://rb_nosuchrole:" + pw + "@" + pg + "/postgres"}, out("o6")...)})
	}
	if _, err := mariaPing(); err == nil {
		cases = append(cases, tc{"innodb wrong password", []string{"authentication failed", "--dsn"},
			append([]string{"run", "--engine", "innodb", "--dsn", "rb_nosuchuser:" + pw + "@tcp(127.0.0.1:3306)/"}, out("o7")...)})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantBadInput(t, c.wants, c.args...)
			stdout, stderr, _ := rb(t, c.args...)
			all := stdout + stderr
			if strings.Contains(all, pw) {
				t.Errorf("the password is printed: %s", all)
			}
			if strings.Contains(all, "open engine") || strings.Contains(all, "failed:") {
				t.Errorf("stacked prefixes: %s", stderr)
			}
			msg := strings.TrimPrefix(strings.TrimSpace(stderr), "rumbench: ")
			if n := strings.Count(all, msg); n != 1 {
				t.Errorf("the message is printed %d times:\n%s", n, all)
			}
		})
	}
}

// TestVerifyKilledRun: verify reads the data of a run killed mid-load as
// it is, without the recovery an ordinary open would write: Pebble and
// SQLite replay or read their logs in memory and pass, changing nothing;
// WiredTiger, whose recovery only a writable open runs, is refused with the
// command that recovers it.
func TestVerifyKilledRun(t *testing.T) {
	engines := []string{"pebble", "sqlite"}
	if slices.Contains(binaryTags, "wiredtiger") {
		engines = append(engines, "wiredtiger")
	}
	for _, e := range engines {
		t.Run(e, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			data, out := filepath.Join(dir, "data"), filepath.Join(dir, "out")
			cmd := exec.Command(binary, "run", "--engine", e, "--data-dir", data, "--out", out, "--steps", "l.i0",
				"--rows", "2000000000", "--clients", "1", "--interval", "200ms")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitIntervals(t, cmd, filepath.Join(out, e, results.IntervalsFile), 3)
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			before := snapshot(t, data)
			stdout, stderr, code := rb(t, "verify", "--engine", e, "--data-dir", data)
			if e == "wiredtiger" {
				if code != 2 || !strings.Contains(stderr, "needs recovery") || !strings.Contains(stderr, "--steps maint") {
					t.Fatalf("verify of a killed wiredtiger run: exit %d: %s%s", code, stdout, stderr)
				}
			} else if code != 0 || !strings.Contains(stdout, "OK: 1 tables") {
				t.Fatalf("verify of a killed run: exit %d: %s%s", code, stdout, stderr)
			}
			after := snapshot(t, data)
			if len(after) != len(before) {
				t.Errorf("verify changed the number of files: %d before, %d after", len(before), len(after))
			}
			for p, b := range before {
				// SQLite's -shm is the WAL's shared-memory index, rebuilt
				// by every open; it holds no data (sqlite.org/walformat).
				if after[p] != b && !strings.HasSuffix(p, "-shm") {
					t.Errorf("verify changed %s", p)
				}
			}
		})
	}
}
