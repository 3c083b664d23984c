package managed_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"rumbench/internal/enginetest"
	"rumbench/internal/managed"
	"rumbench/internal/model"
	"rumbench/internal/workload/ibench"
)

// Only one PostgreSQL and one MariaDB are installed where these tests run,
// so a second installation is built as a directory of symlinks to the
// system's binaries: the mechanism is the same as for two real versions
// (docs/managed.md says how to give those).

// symlinkDir creates dir/rel holding a symlink to every entry of src.
func symlinkDir(t *testing.T, dir, rel, src string) {
	t.Helper()
	dst := filepath.Join(dir, rel)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := os.Symlink(filepath.Join(src, e.Name()), filepath.Join(dst, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
}

// binaryVersion is the version an installation's binary prints: its first
// word that starts with a digit ("postgres (PostgreSQL) 15.14 (Debian
// 15.14-1)" → "15.14").
func binaryVersion(t *testing.T, bin string) string {
	t.Helper()
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatalf("%s --version: %v", bin, err)
	}
	for _, f := range strings.Fields(string(out)) {
		if f[0] >= '0' && f[0] <= '9' {
			return f
		}
	}
	t.Fatalf("%s --version prints no version: %s", bin, out)
	return ""
}

// TestTwoPostgresInstallations: two managed servers from two installation
// directories run side by side, each reporting its installation and the
// version that installation's binaries have; a run on each records that
// version and its own settings' diff in run.json.
func TestTwoPostgresInstallations(t *testing.T) {
	needBinaries(t, "postgres")
	base := baseDir(t)
	sys := start(t, managed.Spec{Engine: "postgres", Dir: filepath.Join(base, "a"), Settings: []managed.Setting{{Key: "shared_buffers", Value: "32MB"}}})
	// initdb and postgres find their share and lib files from the real
	// path of a symlinked binary.
	other := filepath.Join(base, "pg-other", "bin")
	symlinkDir(t, filepath.Dir(other), "bin", sys.Install())
	alt := start(t, managed.Spec{Engine: "postgres", Dir: filepath.Join(base, "b"), Install: filepath.Dir(other), Settings: []managed.Setting{{Key: "shared_buffers", Value: "48MB"}}})
	if alt.Install() != other {
		t.Errorf("server from %s reports installation %s", other, alt.Install())
	}
	if sys.Pid() == alt.Pid() || sys.Port() == alt.Port() || alt.Pid() == 0 {
		t.Fatalf("the two servers share a process or port: pids %d %d, ports %d %d", sys.Pid(), alt.Pid(), sys.Port(), alt.Port())
	}
	for _, c := range []struct {
		srv     *managed.Server
		buffers string
	}{{sys, "32MB"}, {alt, "48MB"}} {
		srv := c.srv
		if got := srv.Settings()["managed_install"]; got != srv.Install() {
			t.Errorf("run.json's managed_install is %q, want %q", got, srv.Install())
		}
		want := binaryVersion(t, filepath.Join(srv.Install(), "postgres"))
		if v := srv.Version(); v == "" || !strings.HasPrefix(v, want) {
			t.Errorf("server from %s reports version %q; its postgres binary is %s", srv.Install(), v, want)
		}
		tg := enginetest.Target{Engine: "postgres", DSN: srv.DSN(), Database: "rumbench_test_install"}
		b := enginetest.RunSteps(t, tg, ibench.Config{Clients: 1, Rows: 2000, Indexes: 1, PadMin: 10, PadMax: 20, Seed: 7, Steps: []string{ibench.StepLoad}})
		e := b.Run.Engine
		if e.Version != srv.Version() {
			t.Errorf("run.json engine version %q, the server's %q", e.Version, srv.Version())
		}
		if v, ok := e.ConfigDiff.Get("shared_buffers"); !ok || v != c.buffers {
			t.Errorf("run.json config_diff on the server from %s: shared_buffers %q (%v), want %s; diff %+v", srv.Install(), v, ok, c.buffers, e.ConfigDiff)
		}
		for _, s := range e.ConfigDiff.Settings {
			if s.Key == "port" || s.Key == "listen_addresses" || strings.HasSuffix(s.Key, "_directories") {
				t.Errorf("plumbing %s is in the diff", s.Key)
			}
		}
	}
}

// TestTwoInnoDBPageSizes: two managed InnoDB servers, one from the system's
// installation and one from a second base directory, with different
// innodb_page_size, read back different page sizes in their config diffs,
// from the server, with the compiled default beside them.
func TestTwoInnoDBPageSizes(t *testing.T) {
	needBinaries(t, "innodb")
	base := baseDir(t)
	alt := filepath.Join(base, "mariadb-other")
	sysServer, err := exec.LookPath("mariadbd")
	if err != nil {
		t.Skipf("mariadbd not on PATH: %v", err)
	}
	prefix := filepath.Dir(filepath.Dir(sysServer)) // /usr
	for _, l := range []struct{ rel, src string }{
		{"bin/mariadb-install-db", filepath.Join(prefix, "bin", "mariadb-install-db")},
		{"bin/my_print_defaults", filepath.Join(prefix, "bin", "my_print_defaults")},
		{"bin/resolveip", filepath.Join(prefix, "bin", "resolveip")},
		{"sbin/mariadbd", sysServer},
		{"share/mysql", filepath.Join(prefix, "share", "mysql")},
		{"lib/mysql/plugin", filepath.Join(prefix, "lib", "mysql", "plugin")},
	} {
		p := filepath.Join(alt, l.rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(l.src, p); err != nil {
			t.Fatal(err)
		}
	}
	servers := []*managed.Server{
		start(t, managed.Spec{Engine: "innodb", Dir: filepath.Join(base, "a"), Settings: []managed.Setting{{Key: "innodb_page_size", Value: "4k"}}}),
		start(t, managed.Spec{Engine: "innodb", Dir: filepath.Join(base, "b"), Install: alt, Settings: []managed.Setting{{Key: "innodb_page_size", Value: "8k"}}}),
	}
	if servers[1].Install() != alt {
		t.Errorf("server from %s reports installation %s", alt, servers[1].Install())
	}
	ctx := context.Background()
	for i, want := range []string{"4096", "8192"} {
		srv := servers[i]
		db := openOn(t, enginetest.Target{Engine: "innodb", DSN: srv.DSN(), Database: "rumbench_test_pages"})
		d, err := db.(model.ConfigDiffer).ConfigDiff(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("server %d (%s, %s): diff %+v", i, srv.Install(), srv.Version(), d.Settings)
		var page *model.SettingDiff
		for i, s := range d.Settings {
			if s.Key == "innodb_page_size" {
				page = &d.Settings[i]
			}
			switch s.Key {
			case "port", "socket", "datadir", "pid_file", "bind_address", "skip_name_resolve", "basedir", "plugin_dir":
				t.Errorf("plumbing %s=%s is in the diff", s.Key, s.Value)
			}
		}
		if page == nil || page.Value != want || page.Default != "16384" || page.Origin != "COMMAND-LINE" {
			t.Errorf("server %d (%s): innodb_page_size in the diff %+v, want %s (default 16384, from the command line); diff %+v", i, srv.Install(), page, want, d.Settings)
		}
		if srv.Version() == "" || !strings.Contains(srv.Version(), "MariaDB") {
			t.Errorf("server %d reports version %q", i, srv.Version())
		}
	}
}

// TestBadInstallation: an installation directory without the server's
// binaries is refused up front, in one line naming what is missing and
// what to give, and Start leaves nothing behind.
func TestBadInstallation(t *testing.T) {
	empty := t.TempDir()
	for _, c := range []struct {
		engine, dir string
		want        []string
	}{
		{"postgres", empty, []string{"lacks initdb and postgres", "give the directory holding PostgreSQL's server binaries"}},
		{"postgres", filepath.Join(empty, "nope"), []string{"is not a directory", "initdb and postgres"}},
		{"innodb", empty, []string{"lacks mariadbd (in sbin/ or bin/) and mariadb-install-db", "give MariaDB's base directory"}},
		{"myrocks", filepath.Join(empty, "nope"), []string{"is not a directory", "MariaDB's base directory"}},
	} {
		err := managed.CheckInstall(c.engine, c.dir)
		if err == nil {
			t.Errorf("%s from %s: accepted", c.engine, c.dir)
			continue
		}
		msg := err.Error()
		if !errors.Is(err, managed.ErrBadInstall) || strings.Contains(msg, "\n") || !strings.Contains(msg, c.dir) {
			t.Errorf("%s from %s: error %q: want one line naming the directory, wrapping ErrBadInstall", c.engine, c.dir, msg)
		}
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s from %s: error %q lacks %q", c.engine, c.dir, msg, w)
			}
		}
	}
	dir := filepath.Join(baseDir(t), "srv")
	srv, err := managed.Start(context.Background(), managed.Spec{Engine: "postgres", Dir: dir, Install: empty})
	if err == nil {
		srv.Stop()
		t.Fatal("Start accepted an installation without binaries")
	}
	if !errors.Is(err, managed.ErrBadInstall) {
		t.Errorf("Start: %v, want ErrBadInstall", err)
	}
	if _, serr := os.Stat(dir); !errors.Is(serr, os.ErrNotExist) {
		t.Errorf("Start with a bad installation created %s", dir)
	}
}

// TestRouteByInstallation: --server-opt keys are checked against the
// settings of the installation each server runs. The second installation
// is a test double: a directory whose postgres prints a settings list with
// one setting the system's PostgreSQL does not have (as a newer version
// would), and whose initdb does nothing.
func TestRouteByInstallation(t *testing.T) {
	needBinaries(t, "postgres")
	fake := t.TempDir()
	script := "#!/bin/sh\nprintf 'shared_buffers\\tResource Usage\\nnewer_version_setting\\tResource Usage\\n'\n"
	for _, name := range []string{"postgres", "initdb"} {
		if err := os.WriteFile(filepath.Join(fake, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	opts := []string{"newer_version_setting=on"}
	if _, err := managed.Route([]string{"postgres"}, opts); err == nil || !strings.Contains(err.Error(), "newer_version_setting") {
		t.Fatalf("the system's PostgreSQL accepted newer_version_setting (err %v)", err)
	}
	got, err := managed.RouteInstalls([]string{"postgres"}, map[string]string{"postgres": fake}, opts)
	if err != nil {
		t.Fatalf("the installation that has newer_version_setting refused it: %v", err)
	}
	if s := got["postgres"]; len(s) != 1 || s[0] != (managed.Setting{Key: "newer_version_setting", Value: "on"}) {
		t.Errorf("routed %+v", got)
	}
	if _, err := managed.RouteInstalls([]string{"postgres"}, map[string]string{"postgres": t.TempDir()}, opts); !errors.Is(err, managed.ErrBadInstall) {
		t.Errorf("routing to an installation without binaries: %v, want ErrBadInstall", err)
	}
}
