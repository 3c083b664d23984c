package main

import (
	"path/filepath"
	"strings"
	"testing"

	"rumbench/internal/enginetest"
	"rumbench/internal/managed"
	"rumbench/internal/results"
)

// requireManaged skips the test when eng's server binaries are not
// installed, or fails it when servers are required (CI,
// RUMBENCH_REQUIRE_SERVERS).
func requireManaged(t *testing.T, eng string) {
	t.Helper()
	if err := managed.Check(eng); err != nil {
		if enginetest.RequireServers() {
			t.Fatalf("managed %s: binaries not installed (CI or RUMBENCH_REQUIRE_SERVERS is set): %v", eng, err)
		}
		t.Skipf("managed %s: binaries not installed here (set RUMBENCH_REQUIRE_SERVERS=1 to fail): %v", eng, err)
	}
}

// Refused before anything starts, one line each: a server setting varied
// without --managed, or by --vary, and flags a managed sweep does not take.
func TestSweepManagedBadInput(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "s")
	base := []string{"sweep", "--out", out, "--indexes", "0"}
	for _, tc := range []struct {
		wants []string
		args  []string
	}{
		{[]string{"--vary-server innodb_page_size varies a managed server's setting", "add --managed"},
			[]string{"--engine", "innodb", "--vary-server", "innodb_page_size=8k,16k"}},
		{[]string{"--vary-server pebble.x", "add --managed"},
			[]string{"--engine", "pebble", "--vary-server", "pebble.x=1,2"}},
		{[]string{"--vary-server \"innodb_page_size\" is not KEY=V1,V2"},
			[]string{"--engine", "innodb", "--managed", "--vary-server", "innodb_page_size"}},
		{[]string{"--server-opt configures a managed server", "add --managed"},
			[]string{"--engine", "innodb", "--server-opt", "innodb_page_size=8k"}},
		{[]string{"unknown flag: --keep-data"}, []string{"--engine", "innodb", "--managed", "--keep-data"}},
		{[]string{"--managed=innodb"}, []string{"--engine", "innodb", "--managed", "innodb"}},
	} {
		wantBadInput(t, tc.wants, append(append([]string{}, base...), tc.args...)...)
	}
	requireManaged(t, "innodb")
	for _, tc := range []struct {
		wants []string
		args  []string
	}{
		{[]string{"innodb takes no engine setting innodb_page_size", "--vary-server innodb.innodb_page_size"},
			[]string{"--engine", "innodb", "--managed", "--vary", "innodb.innodb_page_size=8k,16k"}},
		{[]string{"--vary-server innodb.no_such", "the innodb server has no setting"},
			[]string{"--engine", "innodb", "--managed", "--vary-server", "innodb.no_such=1,2"}},
		{[]string{"--vary-server innodb_page_size and --server-opt both set innodb_page_size for innodb"},
			[]string{"--engine", "innodb", "--managed", "--vary-server", "innodb_page_size=8k,16k", "--server-opt", "innodb_page_size=4k"}},
		{[]string{"--vary-server pebble.x: pebble runs on no server"},
			[]string{"--engine", "innodb,pebble", "--managed", "--vary-server", "pebble.x=1,2"}},
		{[]string{"--vary-server port", "rumbench sets port"},
			[]string{"--engine", "innodb", "--managed", "--vary-server", "port=1,2"}},
	} {
		wantBadInput(t, tc.wants, append(append([]string{}, base...), tc.args...)...)
	}
}

// sweep --managed --vary-server of InnoDB's page size: two variants, each
// on a server of its own that serves both of its cells (one pid), each
// reading back its own page size; the matrices have a row per variant, the
// disk figure is the cell's database, and no server is left; a rerun
// starts none. Two values that the server reads back alike are refused
// before anything runs.
func TestSweepManagedVaryServer(t *testing.T) {
	t.Parallel()
	requireManaged(t, "innodb")
	out := filepath.Join(t.TempDir(), "s")
	args := []string{"sweep", "--engine", "innodb", "--managed", "--vary-server", "innodb_page_size=8k,16k",
		"--indexes", "0,1", "--rows", "2000", "--interval", "200ms", "--cache-size", "32MB", "--out", out}
	stdout, stderr, code := rb(t, args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	want := map[string]string{"innodb-innodb_page_size-8k": "8192", "innodb-innodb_page_size-16k": "16384"}
	pids := map[string]string{}
	for label, page := range want {
		// Four matrices (ipsAvg..., relative, r/i, wKB/i): one row each.
		if n := strings.Count(stdout, "| "+label+" "); n != 4 {
			t.Errorf("%s has %d rows in the matrices, want 4:\n%s", label, n, stdout)
		}
		for _, cell := range []string{"x0-pad20-c1", "x1-pad20-c1"} {
			b, err := results.Read(filepath.Join(out, cell, label))
			if err != nil {
				t.Fatal(err)
			}
			st := b.Run.Engine.Settings
			if b.Run.Label != label || st["innodb_page_size"] != page || st["managed"] != "true" {
				t.Errorf("%s/%s: label %q, innodb_page_size read back %q (want %s), managed %q", cell, label, b.Run.Label, st["innodb_page_size"], page, st["managed"])
			}
			diff := map[string]string{}
			if cd := b.Run.Engine.ConfigDiff; cd != nil {
				for _, s := range cd.Settings {
					diff[s.Key] = s.Value
				}
			}
			// 16k is the default: only the 8k variant's diff names it.
			if got, inDiff := diff["innodb_page_size"]; (page == "8192") != inDiff || inDiff && got != page {
				t.Errorf("%s/%s: config diff %v", cell, label, diff)
			}
			if m := b.Steps["l.i0x"].Metrics; m == nil || m.DiskSource != results.DiskDatabaseDir {
				t.Errorf("%s/%s: disk measured in %+v, want the cell's database dir", cell, label, m)
			}
			if prev, ok := pids[label]; ok && prev != st["managed_pid"] {
				t.Errorf("%s ran its cells on two servers (pids %s, %s), want one", label, prev, st["managed_pid"])
			}
			pids[label] = st["managed_pid"]
			checkServerGone(t, st)
		}
	}
	if pids["innodb-innodb_page_size-8k"] == pids["innodb-innodb_page_size-16k"] {
		t.Errorf("both variants ran on server pid %s, want one server each", pids["innodb-innodb_page_size-8k"])
	}
	if !strings.Contains(stdout, "2 cells × 2 engines") || strings.Count(stdout, "| variant ") != 4 {
		t.Errorf("sweep output:\n%s", stdout)
	}
	// A rerun with every run finished resumes nothing and starts no server.
	if so, se, code := rb(t, args...); code != 0 || strings.Contains(so, "managed innodb:") || !strings.Contains(so, "4 of 4 runs already finished") {
		t.Errorf("rerun: exit %d\n%s\n%s", code, so, se)
	}
	wantBadInput(t, []string{"innodb-innodb_page_size-16k and innodb-innodb_page_size-16384 have the same settings once open"},
		"sweep", "--engine", "innodb", "--managed", "--vary-server", "innodb_page_size=16k,16384", "--indexes", "0",
		"--rows", "1000", "--out", filepath.Join(t.TempDir(), "same"))
}
