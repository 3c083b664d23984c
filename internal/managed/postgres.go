package managed

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/jackc/pgx/v5"
)

// PostgreSQL: initdb creates the cluster (superuser "postgres", trust
// authentication, UTF8, locale C.UTF-8), postgres runs it on 127.0.0.1 only
// (no Unix socket), logging to stderr, with each setting as -c key=value.
// The rest of the configuration is initdb's postgresql.conf: the compiled
// defaults, not the system cluster's.

// EnvPGBinDir overrides where the PostgreSQL server binaries are found
// (default: the newest /usr/lib/postgresql/<version>/bin, Debian's layout)
// for a server whose Spec names no installation.
const EnvPGBinDir = "RUMBENCH_PG_BINDIR"

// postgresFlavor runs the PostgreSQL installation in install (a directory
// holding initdb and postgres, or one with them in bin/); "" is the
// system's.
type postgresFlavor struct{ install string }

// pgInstall is one PostgreSQL installation: the directory of its server
// binaries and, read once, the settings its server has.
type pgInstall struct {
	dir  string
	kone sync.Once
	keys map[string]bool
	kerr error
}

var pgInstalls struct {
	mu     sync.Mutex
	byDir  map[string]*pgInstall
	defDir string // the system's, found once
	defErr error
	once   sync.Once
}

// pgInstallation finds the PostgreSQL installation in install ("": the
// system's), checking that it holds the server binaries.
func pgInstallation(install string) (*pgInstall, error) {
	var dir string
	if install == "" {
		pgInstalls.once.Do(func() { pgInstalls.defDir, pgInstalls.defErr = pgDefaultDir() })
		if pgInstalls.defErr != nil {
			return nil, pgInstalls.defErr
		}
		dir = pgInstalls.defDir
	} else {
		var err error
		if dir, err = pgInstallDir(install); err != nil {
			return nil, err
		}
	}
	pgInstalls.mu.Lock()
	defer pgInstalls.mu.Unlock()
	if pgInstalls.byDir == nil {
		pgInstalls.byDir = map[string]*pgInstall{}
	}
	in := pgInstalls.byDir[dir]
	if in == nil {
		in = &pgInstall{dir: dir}
		pgInstalls.byDir[dir] = in
	}
	return in, nil
}

// pgServerBinaries are what a PostgreSQL installation must hold.
var pgServerBinaries = []string{"initdb", "postgres"}

// pgDefaultDir is $RUMBENCH_PG_BINDIR or the newest Debian-layout
// installation.
func pgDefaultDir() (string, error) {
	dir := os.Getenv(EnvPGBinDir)
	if dir == "" {
		dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
		// Newest major version first.
		sort.Slice(dirs, func(i, j int) bool {
			vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
			vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
			return vi > vj
		})
		for _, d := range dirs {
			if len(missing(d, pgServerBinaries)) == 0 {
				dir = d
				break
			}
		}
	}
	if dir == "" || len(missing(dir, pgServerBinaries)) > 0 {
		return "", fmt.Errorf("managed postgres needs the PostgreSQL server binaries initdb and postgres (not found in /usr/lib/postgresql/*/bin or $%s): install them (apt-get install postgresql) or drop postgres from --managed", EnvPGBinDir)
	}
	return dir, nil
}

// pgInstallDir checks a PostgreSQL installation given for a server: the
// directory holding initdb and postgres, or its parent (bin/ inside).
func pgInstallDir(install string) (string, error) {
	abs, err := filepath.Abs(install)
	if err != nil {
		return "", fmt.Errorf("managed postgres: %w: %s: %v", ErrBadInstall, install, err)
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return "", fmt.Errorf("managed postgres: %w: %s is not a directory: give the directory holding PostgreSQL's initdb and postgres (e.g. /usr/lib/postgresql/15/bin)", ErrBadInstall, install)
	}
	for _, d := range []string{abs, filepath.Join(abs, "bin")} {
		if len(missing(d, pgServerBinaries)) == 0 {
			return d, nil
		}
	}
	return "", fmt.Errorf("managed postgres: %w: %s lacks %s (nor in its bin/): give the directory holding PostgreSQL's server binaries initdb and postgres (e.g. /usr/lib/postgresql/15/bin)", ErrBadInstall, install, strings.Join(missing(abs, pgServerBinaries), " and "))
}

// missing lists the names that are not executable files in dir.
func missing(dir string, names []string) []string {
	var out []string
	for _, n := range names {
		if !isExec(filepath.Join(dir, n)) {
			out = append(out, n)
		}
	}
	return out
}

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

func (postgresFlavor) name() string { return "PostgreSQL" }

func (f postgresFlavor) check() error {
	_, err := pgInstallation(f.install)
	return err
}

// bin is the path of one of the installation's binaries (check has
// passed).
func (f postgresFlavor) bin(name string) string {
	in, _ := pgInstallation(f.install)
	return filepath.Join(in.dir, name)
}

func (f postgresFlavor) installDir() string {
	in, _ := pgInstallation(f.install)
	return in.dir
}

func (postgresFlavor) initialized(dataDir string) bool {
	_, err := os.Stat(filepath.Join(dataDir, "PG_VERSION"))
	return err == nil
}

func (f postgresFlavor) initCmd(s *Server) *exec.Cmd {
	// --no-sync: the cluster is new and private; a crash during initdb
	// means starting again, not recovering.
	return exec.Command(f.bin("initdb"), "-D", s.dataDir, "-U", "postgres", "--auth=trust",
		"-E", "UTF8", "--locale=C.UTF-8", "--no-sync", "--no-instructions")
}

func (f postgresFlavor) serverCmd(s *Server) *exec.Cmd {
	args := []string{"-D", s.dataDir, "-p", strconv.Itoa(s.port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "logging_collector=off"}
	for _, st := range s.spec.Settings {
		args = append(args, "-c", st.Key+"="+st.Value)
	}
	return exec.Command(f.bin("postgres"), args...)
}

func (postgresFlavor) dsn(s *Server) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", s.port)
}

func (postgresFlavor) readBack(ctx context.Context, dsn string, keys []string) (string, map[string]string, error) {
	c, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return "", nil, err
	}
	defer c.Close(context.WithoutCancel(ctx))
	var version string
	if err := c.QueryRow(ctx, "SELECT current_setting('server_version')").Scan(&version); err != nil {
		return "", nil, err
	}
	out := map[string]string{}
	for _, k := range keys {
		var v string
		if err := c.QueryRow(ctx, "SELECT current_setting($1)", k).Scan(&v); err != nil {
			return "", nil, fmt.Errorf("read back %s: %w", k, err)
		}
		out[k] = v
	}
	return version, out, nil
}

// SIGINT is PostgreSQL's fast shutdown (sessions end, a checkpoint is
// written); SIGQUIT its immediate shutdown, for when rumbench dies.
func (postgresFlavor) stopSignal() syscall.Signal  { return syscall.SIGINT }
func (postgresFlavor) deathSignal() syscall.Signal { return syscall.SIGQUIT }

// errorLine is the first FATAL/PANIC/ERROR line of the log (or initdb's
// "error:" line), without the timestamp and pid prefix.
func (postgresFlavor) errorLine(log string) string {
	for _, l := range strings.Split(log, "\n") {
		for _, mark := range []string{"FATAL:", "PANIC:", "ERROR:", "initdb: error:"} {
			if i := strings.Index(l, mark); i >= 0 {
				return strings.Join(strings.Fields(l[i:]), " ")
			}
		}
	}
	return ""
}

func (postgresFlavor) adjusted(string) string { return "" }

// pgKeys lists the settings of the PostgreSQL installation in install
// ("": the system's) (postgres --describe-config).
func pgKeys(install string) (map[string]bool, error) {
	in, err := pgInstallation(install)
	if err != nil {
		return nil, err
	}
	in.kone.Do(func() {
		out, err := exec.Command(filepath.Join(in.dir, "postgres"), "--describe-config").Output()
		if err != nil {
			in.kerr = fmt.Errorf("list PostgreSQL's settings (%s --describe-config): %w", filepath.Join(in.dir, "postgres"), err)
			return
		}
		in.keys = map[string]bool{}
		for _, l := range strings.Split(string(out), "\n") {
			if name, _, ok := strings.Cut(l, "\t"); ok && name != "" {
				in.keys[strings.ToLower(name)] = true
			}
		}
	})
	return in.keys, in.kerr
}

// pgReserved are settings rumbench sets itself for the managed server.
var pgReserved = map[string]bool{
	"port": true, "listen_addresses": true, "unix_socket_directories": true, "data_directory": true,
	"config_file": true, "hba_file": true, "ident_file": true, "logging_collector": true,
}

// ownKey: PostgreSQL's settings are those `postgres --describe-config`
// lists.
func (f postgresFlavor) ownKey(key string) (string, bool, error) {
	keys, err := pgKeys(f.install)
	if err != nil {
		return "", false, err
	}
	return key, keyRE.MatchString(key) && keys[key], nil
}

func (postgresFlavor) reserved(key string) bool { return pgReserved[key] }

func (postgresFlavor) listHint() string {
	return "PostgreSQL's are listed by `postgres --describe-config`"
}

// cacheSetting: shared_buffers, which takes kB (a bare number would be
// 8 kB blocks).
func (postgresFlavor) cacheSetting() string { return "shared_buffers" }

func (postgresFlavor) cacheValue(bytes int64) string {
	return strconv.FormatInt(bytes>>10, 10) + "kB"
}
