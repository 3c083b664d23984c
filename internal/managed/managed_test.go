package managed_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"rumbench/internal/engine"
	_ "rumbench/internal/engine/all"
	"rumbench/internal/engineopt"
	"rumbench/internal/enginetest"
	"rumbench/internal/managed"
	"rumbench/internal/model"
	"rumbench/internal/results"
)

// These tests start private servers from the installed binaries (they
// never touch the system servers on 5432/3306). They skip, saying why, when
// the binaries are not installed; with the binaries there they run (and
// fail on any error) everywhere, CI included.

func needBinaries(t *testing.T, eng string) {
	t.Helper()
	if err := managed.Check(eng); err != nil {
		t.Skipf("managed %s: binaries not installed here: %v", eng, err)
	}
}

// baseDir is a fresh directory the servers' user can reach (t.TempDir's
// parent is mode 0700, closed to the unprivileged user servers run as
// under root).
func baseDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "rumbench-managed-test-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(d, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

func start(t *testing.T, spec managed.Spec) *managed.Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	srv, err := managed.Start(ctx, spec)
	if err != nil {
		t.Fatalf("start managed %s: %v", spec.Engine, err)
	}
	t.Cleanup(func() { srv.Stop() })
	return srv
}

// processesUsing lists processes whose command line mentions path.
func processesUsing(path string) []string {
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), path) {
			out = append(out, e.Name()+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return out
}

// assertGone checks that a stopped server left no process, no listener
// on its port and (unless kept) no directory.
func assertGone(t *testing.T, srv *managed.Server, pid, port int, dirGone string) {
	t.Helper()
	if m := managed.GroupMembers(pid); len(m) > 0 {
		t.Errorf("processes of the server's group %d are left: %v", pid, m)
	}
	if _, err := os.Stat(filepath.Join("/proc", strconv.Itoa(pid))); err == nil {
		if st, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat")); !strings.Contains(string(st), ") Z") {
			t.Errorf("server pid %d is still running", pid)
		}
	}
	if p := processesUsing(srv.DataDir()); len(p) > 0 {
		t.Errorf("processes still use %s: %v", srv.DataDir(), p)
	}
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Errorf("port %d is still taken after Stop: %v", port, err)
	} else {
		l.Close()
	}
	if dirGone != "" {
		if _, err := os.Stat(dirGone); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is left after Stop (err %v)", dirGone, err)
		}
	}
}

// openOn opens the engine on a managed server, closed at the test's end.
func openOn(t *testing.T, tg enginetest.Target) model.DB {
	t.Helper()
	db, err := engine.Open(context.Background(), tg.Engine, model.Config{DSN: tg.DSN, Database: tg.Database})
	if err != nil {
		t.Fatalf("open %s: %v", tg.Engine, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// checkServerProcess opens the engine on the managed server and checks
// that it reports the managed server's pid and data dir, which the system
// metrics sampler then measures.
func checkServerProcess(t *testing.T, srv *managed.Server, tg enginetest.Target) {
	t.Helper()
	ctx := context.Background()
	db := openOn(t, tg)
	pid, dir, err := db.(model.ProcessOwner).ServerProcess(ctx)
	if err != nil {
		t.Fatalf("ServerProcess: %v", err)
	}
	if pid != srv.Pid() || filepath.Clean(dir) != srv.DataDir() {
		t.Errorf("engine reports server pid %d, data dir %s; managed server is pid %d, %s", pid, dir, srv.Pid(), srv.DataDir())
	}
}

// checkDiff opens the engine on the managed server and checks that its
// config diff, read from the server, holds every setting given with the
// value the server runs with.
func checkDiff(t *testing.T, tg enginetest.Target, settings []managed.Setting, want map[string]string) {
	t.Helper()
	ctx := context.Background()
	db := openOn(t, tg)
	d, err := db.(model.ConfigDiffer).ConfigDiff(ctx)
	if err != nil {
		t.Fatalf("ConfigDiff: %v", err)
	}
	t.Logf("%s: config diff %+v", tg.Engine, d.Settings)
	for _, s := range settings {
		if v, ok := d.Get(s.Key); !ok || !engineopt.SameValue(v, want[s.Key]) {
			t.Errorf("config diff: %s=%q (%v), want %s", s.Key, v, ok, want[s.Key])
		}
	}
}

func wantSetting(t *testing.T, srv *managed.Server, key, given, effective string) {
	t.Helper()
	st := srv.Settings()
	if st[model.ServerOptPrefix+key] != given || st[key] != effective {
		t.Errorf("%s: recorded as given %q, effective %q; want %q, %q", key, st[model.ServerOptPrefix+key], st[key], given, effective)
	}
}

// runOn runs the engine integration test (WriteSteps) on a managed server
// with the given settings, checks the settings read back, the process the
// engine reports, and that Stop leaves nothing.
func runOn(t *testing.T, eng string, settings []managed.Setting, want map[string]string) {
	needBinaries(t, eng)
	dir := filepath.Join(baseDir(t), eng)
	srv := start(t, managed.Spec{Engine: eng, Dir: dir, Settings: settings})
	if srv.Port() == 5432 || srv.Port() == 3306 {
		t.Fatalf("managed server took the system port %d", srv.Port())
	}
	for _, s := range settings {
		wantSetting(t, srv, s.Key, s.Value, want[s.Key])
	}
	tg := enginetest.Target{Engine: eng, DSN: srv.DSN(), Database: "rumbench_test_managed"}
	enginetest.WriteSteps(t, tg)
	checkServerProcess(t, srv, tg)
	checkDiff(t, tg, settings, want)
	// The footprint of a managed server is its private data dir.
	enginetest.Sizes(t, enginetest.Target{Engine: eng, DSN: srv.DSN(), Database: "rumbench_test_managed_sizes", DataDir: dir}, results.DiskServerDataDir)
	pid, port := srv.Pid(), srv.Port()
	if err := srv.Stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	assertGone(t, srv, pid, port, dir)
}

func TestManagedPostgres(t *testing.T) {
	runOn(t, "postgres",
		[]managed.Setting{{Key: "shared_buffers", Value: "64MB"}, {Key: "synchronous_commit", Value: "off"}},
		map[string]string{"shared_buffers": "64MB", "synchronous_commit": "off"})
}

// TestManagedInnoDB also checks that innodb_page_size=8k, which fixes the
// data files' format at creation, works on a fresh server.
func TestManagedInnoDB(t *testing.T) {
	runOn(t, "innodb",
		[]managed.Setting{{Key: "innodb_page_size", Value: "8k"}, {Key: "innodb_buffer_pool_size", Value: "64M"}, {Key: "innodb_doublewrite", Value: "0"}},
		map[string]string{"innodb_page_size": "8192", "innodb_buffer_pool_size": "67108864", "innodb_doublewrite": "0"})
}

func TestManagedMyRocks(t *testing.T) {
	runOn(t, "myrocks",
		[]managed.Setting{{Key: "rocksdb_block_cache_size", Value: "64M"}},
		map[string]string{"rocksdb_block_cache_size": "67108864"})
}

// TestKeepAndReuse: a kept server dir survives Stop with no process left,
// a second Start reuses it without initdb (the data is still there) and
// with the settings it was created with, and without Keep the second Stop
// removes it.
func TestKeepAndReuse(t *testing.T) {
	needBinaries(t, "postgres")
	dir := baseDir(t)
	srv := start(t, managed.Spec{Engine: "postgres", Dir: dir, Keep: true, Settings: []managed.Setting{{Key: "shared_buffers", Value: "32MB"}}})
	if srv.Settings()["managed_init_s"] == "0.00" {
		t.Errorf("a fresh server reports no initdb time")
	}
	ctx := context.Background()
	db, err := engine.Open(ctx, "postgres", model.Config{DSN: srv.DSN(), Database: "rumbench_test_keep"})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	pid, port := srv.Pid(), srv.Port()
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	assertGone(t, srv, pid, port, "")
	if _, err := os.Stat(filepath.Join(srv.DataDir(), "PG_VERSION")); err != nil {
		t.Fatalf("kept data dir is gone: %v", err)
	}

	// A refused setting on the kept server fails that start only: the
	// kept data and settings stay.
	ctx2, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if bad, err := managed.Start(ctx2, managed.Spec{Engine: "postgres", Dir: dir, Settings: []managed.Setting{{Key: "shared_buffers", Value: "abc"}}}); err == nil {
		bad.Stop()
		t.Fatal("shared_buffers=abc was accepted")
	}
	if _, err := os.Stat(filepath.Join(srv.DataDir(), "PG_VERSION")); err != nil {
		t.Fatalf("a failed start on the kept server removed it: %v", err)
	}

	srv2 := start(t, managed.Spec{Engine: "postgres", Dir: dir})
	if got := srv2.Settings()["managed_init_s"]; got != "0.00" {
		t.Errorf("reused server ran initdb (%s s)", got)
	}
	wantSetting(t, srv2, "shared_buffers", "32MB", "32MB")
	db, err = engine.Open(ctx, "postgres", model.Config{DSN: srv2.DSN(), Database: "rumbench_test_keep"})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	pid, port = srv2.Pid(), srv2.Port()
	if err := srv2.Stop(); err != nil {
		t.Fatal(err)
	}
	assertGone(t, srv2, pid, port, filepath.Join(dir, "server"))
}

// TestBadSettingIsOneLine: a value the server refuses (or, for MariaDB,
// silently adjusts) fails Start with the server's own error line, and
// leaves no process and no directory.
func TestBadSettingIsOneLine(t *testing.T) {
	cases := []struct {
		eng, key, value, want string
	}{
		{"postgres", "shared_buffers", "abc", `invalid value for parameter "shared_buffers": "abc"`},
		{"innodb", "innodb_buffer_pool_size", "abc", `Unknown suffix 'a' used for variable 'innodb-buffer-pool-size'`},
		{"innodb", "innodb_flush_log_at_trx_commit", "7", "unsigned value 7 adjusted to 3"},
	}
	for _, c := range cases {
		t.Run(c.eng+"_"+c.key, func(t *testing.T) {
			needBinaries(t, c.eng)
			dir := filepath.Join(baseDir(t), "srv")
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			srv, err := managed.Start(ctx, managed.Spec{Engine: c.eng, Dir: dir, Settings: []managed.Setting{{Key: c.key, Value: c.value}}})
			if err == nil {
				srv.Stop()
				t.Fatalf("%s=%s was accepted", c.key, c.value)
			}
			var rej *managed.RejectedError
			if !errors.As(err, &rej) {
				t.Fatalf("error is not a RejectedError: %v", err)
			}
			if !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q: want one line containing %q", err, c.want)
			}
			if _, serr := os.Stat(dir); !errors.Is(serr, os.ErrNotExist) {
				t.Errorf("%s is left after the failed start", dir)
			}
			if p := processesUsing(dir); len(p) > 0 {
				t.Errorf("processes left after the failed start: %v", p)
			}
		})
	}
}

// TestStartCancelled: a start interrupted (Ctrl-C) during initdb leaves
// nothing behind.
func TestStartCancelled(t *testing.T) {
	needBinaries(t, "postgres")
	dir := filepath.Join(baseDir(t), "srv")
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	srv, err := managed.Start(ctx, managed.Spec{Engine: "postgres", Dir: dir})
	if err == nil {
		srv.Stop()
		t.Skip("the server started within 0.5 s: nothing was interrupted")
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("interrupted start returned %v, want the context's error", err)
	}
	if _, serr := os.Stat(dir); !errors.Is(serr, os.ErrNotExist) {
		t.Errorf("%s is left after the interrupted start", dir)
	}
	if p := processesUsing(dir); len(p) > 0 {
		t.Errorf("processes left after the interrupted start: %v", p)
	}
}
