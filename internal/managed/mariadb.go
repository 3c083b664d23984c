package managed

import (
	"context"
	stdsql "database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/go-sql-driver/mysql"
)

// MariaDB: mariadb-install-db creates the data dir (root without a
// password, no test database), mariadbd runs it on 127.0.0.1 with its own
// socket and pid file in the server dir, logging to stderr, each setting as
// --key=value. Nothing is read from /etc/mysql (--no-defaults): the
// configuration is MariaDB's compiled defaults plus the settings. The
// settings go to mariadb-install-db too, because some fix the data files'
// format at creation (innodb_page_size). The myrocks server loads
// ha_rocksdb.so at start (--plugin-load-add): loading it later with INSTALL
// SONAME crashes MariaDB 10.11's Debian build.

// mariadbFlavor runs the MariaDB installation whose base directory is
// install ("": the system's, found on PATH and in the usual sbin/bin
// directories).
type mariadbFlavor struct {
	rocksdb bool
	install string
}

// mariaInstall is one MariaDB installation: its binaries, its base
// directory when given ("" for the system's, which needs no --basedir), the
// MyRocks plugin and, read once, the variables its server has.
type mariaInstall struct {
	base              string
	installDB, server string
	plugin            string // ha_rocksdb.so's path, "" when not installed
	kone              sync.Once
	keys, rocksKeys   map[string]bool
	kerr              error
}

var mariaInstalls struct {
	mu     sync.Mutex
	byBase map[string]*mariaInstall
	def    *mariaInstall
	defErr error
	once   sync.Once
}

// pluginDirs are where Debian and other distributions put MariaDB plugins;
// basePluginDirs the same inside an installation's base directory (a
// package's /usr or a binary tarball's top directory).
var (
	pluginDirs     = []string{"/usr/lib/mysql/plugin", "/usr/lib/*/mysql/plugin", "/usr/lib64/mysql/plugin", "/usr/lib/mariadb/plugin", "/usr/lib64/mariadb/plugin"}
	basePluginDirs = []string{"lib/plugin", "lib/mysql/plugin", "lib/*/mysql/plugin", "lib64/mysql/plugin", "lib/mariadb/plugin", "lib64/mariadb/plugin"}
)

// mariaInstallation finds the MariaDB installation in install ("": the
// system's), checking that it holds the server binaries.
func mariaInstallation(install string) (*mariaInstall, error) {
	if install == "" {
		mariaInstalls.once.Do(func() { mariaInstalls.def, mariaInstalls.defErr = mariaDefault() })
		return mariaInstalls.def, mariaInstalls.defErr
	}
	base, err := filepath.Abs(install)
	if err != nil {
		return nil, fmt.Errorf("managed innodb/myrocks: %w: %s: %v", ErrBadInstall, install, err)
	}
	mariaInstalls.mu.Lock()
	defer mariaInstalls.mu.Unlock()
	if in := mariaInstalls.byBase[base]; in != nil {
		return in, nil
	}
	in, err := mariaInBase(install, base)
	if err != nil {
		return nil, err
	}
	if mariaInstalls.byBase == nil {
		mariaInstalls.byBase = map[string]*mariaInstall{}
	}
	mariaInstalls.byBase[base] = in
	return in, nil
}

// find returns the first executable of names in dirs, or "".
func find(dirs []string, names ...string) string {
	for _, n := range names {
		for _, d := range dirs {
			if p := filepath.Join(d, n); isExec(p) {
				return p
			}
		}
	}
	return ""
}

func findPlugin(dirs []string) string {
	for _, d := range dirs {
		if m, _ := filepath.Glob(filepath.Join(d, "ha_rocksdb.so")); len(m) > 0 {
			return m[0]
		}
	}
	return ""
}

func mariaDefault() (*mariaInstall, error) {
	// Each name on PATH, then in the usual directories, before the next.
	look := func(names ...string) string {
		for _, n := range names {
			if p, err := exec.LookPath(n); err == nil {
				return p
			}
			if p := find([]string{"/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"}, n); p != "" {
				return p
			}
		}
		return ""
	}
	in := &mariaInstall{installDB: look("mariadb-install-db", "mysql_install_db"), server: look("mariadbd", "mysqld")}
	if in.installDB == "" || in.server == "" {
		return nil, fmt.Errorf("managed innodb/myrocks need the MariaDB server binaries mariadb-install-db and mariadbd: install them (apt-get install mariadb-server) or drop the engine from --managed")
	}
	in.plugin = findPlugin(pluginDirs)
	return in, nil
}

// mariaInBase checks a MariaDB installation given by its base directory:
// mariadbd in sbin/ or bin/ (a package's layout or a binary tarball's),
// mariadb-install-db in bin/ or scripts/.
func mariaInBase(install, base string) (*mariaInstall, error) {
	if st, err := os.Stat(base); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("managed innodb/myrocks: %w: %s is not a directory: give MariaDB's base directory (the one holding bin/ and share/; /usr for the distribution's packages)", ErrBadInstall, install)
	}
	in := &mariaInstall{base: base,
		server:    find([]string{filepath.Join(base, "sbin"), filepath.Join(base, "bin")}, "mariadbd", "mysqld"),
		installDB: find([]string{filepath.Join(base, "bin"), filepath.Join(base, "scripts")}, "mariadb-install-db", "mysql_install_db"),
	}
	var lack []string
	if in.server == "" {
		lack = append(lack, "mariadbd (in sbin/ or bin/)")
	}
	if in.installDB == "" {
		lack = append(lack, "mariadb-install-db (in bin/ or scripts/)")
	}
	if len(lack) > 0 {
		return nil, fmt.Errorf("managed innodb/myrocks: %w: %s lacks %s: give MariaDB's base directory (the one holding bin/ and share/; /usr for the distribution's packages)", ErrBadInstall, install, strings.Join(lack, " and "))
	}
	var dirs []string
	for _, d := range basePluginDirs {
		dirs = append(dirs, filepath.Join(base, d))
	}
	in.plugin = findPlugin(dirs)
	return in, nil
}

// baseArgs point the installation's commands at their own files: a given
// base directory, and for MyRocks its plugin directory; nothing for the
// system's installation (its compiled-in paths).
func (f *mariadbFlavor) baseArgs(in *mariaInstall) []string {
	if in.base == "" {
		return nil
	}
	args := []string{"--basedir=" + in.base}
	if in.plugin != "" {
		args = append(args, "--plugin-dir="+filepath.Dir(in.plugin))
	}
	return args
}

func (f *mariadbFlavor) inst() *mariaInstall {
	in, _ := mariaInstallation(f.install)
	return in
}

func (f *mariadbFlavor) installDir() string {
	if in := f.inst(); in.base != "" {
		return in.base
	}
	// The system's: the prefix of mariadbd (/usr for /usr/sbin/mariadbd).
	return filepath.Dir(filepath.Dir(f.inst().server))
}

func (f *mariadbFlavor) name() string {
	if f.rocksdb {
		return "MariaDB (MyRocks)"
	}
	return "MariaDB"
}

func (f *mariadbFlavor) check() error {
	in, err := mariaInstallation(f.install)
	if err != nil {
		return err
	}
	if f.rocksdb && in.plugin == "" {
		if in.base != "" {
			return fmt.Errorf("managed myrocks: %w: %s lacks MariaDB's MyRocks plugin ha_rocksdb.so (looked in %s under it): give an installation with MyRocks, or drop myrocks from --managed", ErrBadInstall, f.install, strings.Join(basePluginDirs, ", "))
		}
		return fmt.Errorf("managed myrocks needs MariaDB's MyRocks plugin ha_rocksdb.so (not found in %s): install it (apt-get install mariadb-plugin-rocksdb) or drop myrocks from --managed", strings.Join(pluginDirs, ", "))
	}
	return nil
}

func (f *mariadbFlavor) initialized(dataDir string) bool {
	st, err := os.Stat(filepath.Join(dataDir, "mysql"))
	return err == nil && st.IsDir()
}

func (f *mariadbFlavor) settingArgs(s *Server) []string {
	var args []string
	if f.rocksdb {
		args = append(args, "--plugin-load-add=ha_rocksdb.so")
	}
	for _, st := range s.spec.Settings {
		args = append(args, "--"+st.Key+"="+st.Value)
	}
	return args
}

// tmpDir is the server's own temporary directory (tmpdir), created when
// missing: a MariaDB server deletes every #sql* file in its tmpdir when it
// starts, so servers starting side by side with a shared /tmp delete each
// other's temporary tables (a concurrent mariadb-install-db then fails
// with "Unknown table 'mysql.tmp_user_sys'"). A failure to create it shows
// as the server's own error about its tmpdir.
func (f *mariadbFlavor) tmpDir(s *Server) string {
	dir := filepath.Join(s.srvDir, "tmp")
	if err := os.Mkdir(dir, 0o750); err == nil {
		os.Chown(dir, s.uid, s.gid)
	}
	return dir
}

func (f *mariadbFlavor) initCmd(s *Server) *exec.Cmd {
	args := []string{"--no-defaults", "--datadir=" + s.dataDir, "--auth-root-authentication-method=normal",
		"--skip-test-db", "--skip-name-resolve", "--tmpdir=" + f.tmpDir(s)}
	in := f.inst()
	args = append(args, f.baseArgs(in)...)
	return exec.Command(in.installDB, append(args, f.settingArgs(s)...)...)
}

func (f *mariadbFlavor) serverCmd(s *Server) *exec.Cmd {
	// A Unix socket path is limited to 107 bytes: a deep --data-dir gets
	// its socket in the temporary directory instead.
	sock := filepath.Join(s.srvDir, "mariadbd.sock")
	if len(sock) > 100 {
		sock = filepath.Join(os.TempDir(), fmt.Sprintf("rumbench-mariadbd-%d.sock", s.port))
		s.created = append(s.created, sock)
	}
	args := []string{"--no-defaults", "--datadir=" + s.dataDir, "--port=" + strconv.Itoa(s.port),
		"--bind-address=127.0.0.1", "--socket=" + sock, "--pid-file=" + filepath.Join(s.srvDir, "mariadbd.pid"),
		"--skip-name-resolve", "--tmpdir=" + f.tmpDir(s)}
	in := f.inst()
	args = append(args, f.baseArgs(in)...)
	return exec.Command(in.server, append(args, f.settingArgs(s)...)...)
}

func (f *mariadbFlavor) dsn(s *Server) string {
	return fmt.Sprintf("root@tcp(127.0.0.1:%d)/", s.port)
}

func (f *mariadbFlavor) readBack(ctx context.Context, dsn string, keys []string) (string, map[string]string, error) {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return "", nil, err
	}
	cfg.Logger = quiet{}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return "", nil, err
	}
	db := stdsql.OpenDB(conn)
	defer db.Close()
	var version string
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		return "", nil, err
	}
	out := map[string]string{}
	for _, k := range keys {
		// Keys were checked to be plain names (see Route).
		var v stdsql.NullString
		if err := db.QueryRowContext(ctx, "SELECT @@GLOBAL."+k).Scan(&v); err != nil {
			// A start-up option that is not a variable: nothing to read.
			out[k] = "(not readable: " + strings.Join(strings.Fields(err.Error()), " ") + ")"
			continue
		}
		out[k] = v.String
	}
	return version, out, nil
}

type quiet struct{}

func (quiet) Print(...any) {}

// SIGTERM is mariadbd's normal shutdown; SIGKILL, for when rumbench dies,
// leaves a data dir that is thrown away anyway.
func (f *mariadbFlavor) stopSignal() syscall.Signal  { return syscall.SIGTERM }
func (f *mariadbFlavor) deathSignal() syscall.Signal { return syscall.SIGKILL }

// errorLine is the first [ERROR] line of the log, from "[ERROR]" on: the
// first is the cause, the later ones its consequences ("Aborting").
func (f *mariadbFlavor) errorLine(log string) string {
	for _, l := range strings.Split(log, "\n") {
		if i := strings.Index(l, "[ERROR]"); i >= 0 {
			return strings.Join(strings.Fields(l[i:]), " ")
		}
	}
	return ""
}

// adjusted finds MariaDB's "[Warning] option 'x': ... adjusted to y": the
// server started with another value than the one given, which a benchmark
// must not report as the setting asked for.
func (f *mariadbFlavor) adjusted(log string) string {
	for _, l := range strings.Split(log, "\n") {
		if i := strings.Index(l, "[Warning] option '"); i >= 0 && strings.Contains(l, "adjusted to") {
			return strings.Join(strings.Fields(l[i:]), " ")
		}
	}
	return ""
}

// mariaKeys lists the variables of the MariaDB installation in install
// ("": the system's) (mariadbd --verbose --help, with MyRocks loaded when
// installed); rocksKeys are those MyRocks adds.
func mariaKeys(install string) (keys, rocksKeys map[string]bool, err error) {
	in, err := mariaInstallation(install)
	if err != nil {
		return nil, nil, err
	}
	in.kone.Do(func() {
		args := append([]string{"--no-defaults"}, (&mariadbFlavor{}).baseArgs(in)...)
		args = append(args, "--verbose", "--help")
		if in.plugin != "" {
			args = append(args, "--plugin-load-add=ha_rocksdb.so")
		}
		out, err := exec.Command(in.server, args...).Output()
		if err != nil {
			in.kerr = fmt.Errorf("list MariaDB's settings (%s --verbose --help): %w", in.server, err)
			return
		}
		in.keys, in.rocksKeys = parseMariaHelp(string(out))
	})
	return in.keys, in.rocksKeys, in.kerr
}

// parseMariaHelp reads the variables table at the end of mariadbd's
// --verbose --help: after the "Variables (--variable-name=value)" header
// and a dashed rule, one "name value" line per variable, names with dashes.
func parseMariaHelp(out string) (keys, rocksKeys map[string]bool) {
	keys, rocksKeys = map[string]bool{}, map[string]bool{}
	lines := strings.Split(out, "\n")
	in := false
	for _, l := range lines {
		if !in {
			in = strings.HasPrefix(l, "-----") && strings.Contains(l, " -----")
			continue
		}
		f := strings.Fields(l)
		if len(f) == 0 {
			break
		}
		k := strings.ReplaceAll(f[0], "-", "_")
		keys[k] = true
		if strings.HasPrefix(k, "rocksdb_") {
			rocksKeys[k] = true
		}
	}
	return keys, rocksKeys
}

// mariaReserved are settings rumbench sets itself for the managed server.
var mariaReserved = map[string]bool{
	"port": true, "bind_address": true, "socket": true, "pid_file": true, "datadir": true, "user": true,
	"basedir": true, "skip_networking": true, "log_error": true, "defaults_file": true, "defaults_extra_file": true,
	"no_defaults": true,
}

// ownKey: MariaDB's settings are those `mariadbd --verbose --help` lists,
// dashes read as underscores; MyRocks' rocksdb_* variables exist only
// where the plugin is loaded (the myrocks server).
func (f *mariadbFlavor) ownKey(key string) (string, bool, error) {
	key = strings.ReplaceAll(key, "-", "_")
	keys, rocks, err := mariaKeys(f.install)
	if err != nil {
		return "", false, err
	}
	if !keyRE.MatchString(key) || !keys[key] {
		return key, false, nil
	}
	return key, f.rocksdb || !rocks[key], nil
}

func (f *mariadbFlavor) reserved(key string) bool { return mariaReserved[key] }

func (f *mariadbFlavor) listHint() string {
	if !f.rocksdb {
		return "MariaDB's by `mariadbd --verbose --help`; rocksdb_* only for myrocks"
	}
	return "MariaDB's by `mariadbd --verbose --help`"
}

// cacheSetting: InnoDB's buffer pool, or MyRocks' block cache; MariaDB
// reads bytes.
func (f *mariadbFlavor) cacheSetting() string {
	if f.rocksdb {
		return "rocksdb_block_cache_size"
	}
	return "innodb_buffer_pool_size"
}

func (f *mariadbFlavor) cacheValue(bytes int64) string { return strconv.FormatInt(bytes, 10) }
