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

type mariadbFlavor struct {
	rocksdb bool
}

var mariaBin struct {
	once              sync.Once
	installDB, server string
	err               error
	plugin            string // ha_rocksdb.so's path, "" when not installed
	kone              sync.Once
	keys, rocksKeys   map[string]bool
	kerr              error
}

// pluginDirs are where Debian and other distributions put MariaDB plugins.
var pluginDirs = []string{"/usr/lib/mysql/plugin", "/usr/lib/*/mysql/plugin", "/usr/lib64/mysql/plugin", "/usr/lib/mariadb/plugin", "/usr/lib64/mariadb/plugin"}

func mariaBinaries() error {
	mariaBin.once.Do(func() {
		find := func(names ...string) string {
			for _, n := range names {
				if p, err := exec.LookPath(n); err == nil {
					return p
				}
				for _, d := range []string{"/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"} {
					if p := filepath.Join(d, n); isExec(p) {
						return p
					}
				}
			}
			return ""
		}
		mariaBin.installDB = find("mariadb-install-db", "mysql_install_db")
		mariaBin.server = find("mariadbd", "mysqld")
		if mariaBin.installDB == "" || mariaBin.server == "" {
			mariaBin.err = fmt.Errorf("managed innodb/myrocks need the MariaDB server binaries mariadb-install-db and mariadbd: install them (apt-get install mariadb-server) or drop the engine from --managed")
			return
		}
		for _, d := range pluginDirs {
			m, _ := filepath.Glob(filepath.Join(d, "ha_rocksdb.so"))
			if len(m) > 0 {
				mariaBin.plugin = m[0]
				break
			}
		}
	})
	return mariaBin.err
}

func (f *mariadbFlavor) name() string {
	if f.rocksdb {
		return "MariaDB (MyRocks)"
	}
	return "MariaDB"
}

func (f *mariadbFlavor) check() error {
	if err := mariaBinaries(); err != nil {
		return err
	}
	if f.rocksdb && mariaBin.plugin == "" {
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

func (f *mariadbFlavor) initCmd(s *Server) *exec.Cmd {
	args := []string{"--no-defaults", "--datadir=" + s.dataDir, "--auth-root-authentication-method=normal",
		"--skip-test-db", "--skip-name-resolve"}
	return exec.Command(mariaBin.installDB, append(args, f.settingArgs(s)...)...)
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
		"--skip-name-resolve"}
	return exec.Command(mariaBin.server, append(args, f.settingArgs(s)...)...)
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

// mariaKeys lists mariadbd's variables (mariadbd --verbose --help, with
// MyRocks loaded when installed); rocksKeys are those MyRocks adds.
func mariaKeys() (keys, rocksKeys map[string]bool, err error) {
	mariaBin.kone.Do(func() {
		if err := mariaBinaries(); err != nil {
			mariaBin.kerr = err
			return
		}
		args := []string{"--no-defaults", "--verbose", "--help"}
		if mariaBin.plugin != "" {
			args = append(args, "--plugin-load-add=ha_rocksdb.so")
		}
		out, err := exec.Command(mariaBin.server, args...).Output()
		if err != nil {
			mariaBin.kerr = fmt.Errorf("list MariaDB's settings (mariadbd --verbose --help): %w", err)
			return
		}
		mariaBin.keys, mariaBin.rocksKeys = parseMariaHelp(string(out))
	})
	return mariaBin.keys, mariaBin.rocksKeys, mariaBin.kerr
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
