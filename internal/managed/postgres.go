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
// (default: the newest /usr/lib/postgresql/<version>/bin, Debian's layout).
const EnvPGBinDir = "RUMBENCH_PG_BINDIR"

type postgresFlavor struct{}

var pgBin struct {
	once sync.Once
	dir  string
	err  error
	keys map[string]bool
	kerr error
	kone sync.Once
}

func pgBinDir() (string, error) {
	pgBin.once.Do(func() {
		if d := os.Getenv(EnvPGBinDir); d != "" {
			pgBin.dir = d
		} else {
			dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
			// Newest major version first.
			sort.Slice(dirs, func(i, j int) bool {
				vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
				vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
				return vi > vj
			})
			for _, d := range dirs {
				if isExec(filepath.Join(d, "initdb")) && isExec(filepath.Join(d, "postgres")) {
					pgBin.dir = d
					break
				}
			}
		}
		for _, b := range []string{"initdb", "postgres"} {
			if pgBin.dir == "" || !isExec(filepath.Join(pgBin.dir, b)) {
				pgBin.err = fmt.Errorf("managed postgres needs the PostgreSQL server binaries initdb and postgres (not found in /usr/lib/postgresql/*/bin or $%s): install them (apt-get install postgresql) or drop postgres from --managed", EnvPGBinDir)
				return
			}
		}
	})
	return pgBin.dir, pgBin.err
}

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

func (postgresFlavor) name() string { return "PostgreSQL" }

func (postgresFlavor) check() error {
	_, err := pgBinDir()
	return err
}

func (postgresFlavor) initialized(dataDir string) bool {
	_, err := os.Stat(filepath.Join(dataDir, "PG_VERSION"))
	return err == nil
}

func (postgresFlavor) initCmd(s *Server) *exec.Cmd {
	dir, _ := pgBinDir()
	// --no-sync: the cluster is new and private; a crash during initdb
	// means starting again, not recovering.
	return exec.Command(filepath.Join(dir, "initdb"), "-D", s.dataDir, "-U", "postgres", "--auth=trust",
		"-E", "UTF8", "--locale=C.UTF-8", "--no-sync", "--no-instructions")
}

func (postgresFlavor) serverCmd(s *Server) *exec.Cmd {
	dir, _ := pgBinDir()
	args := []string{"-D", s.dataDir, "-p", strconv.Itoa(s.port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "logging_collector=off"}
	for _, st := range s.spec.Settings {
		args = append(args, "-c", st.Key+"="+st.Value)
	}
	return exec.Command(filepath.Join(dir, "postgres"), args...)
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

// pgKeys lists PostgreSQL's settings (postgres --describe-config).
func pgKeys() (map[string]bool, error) {
	pgBin.kone.Do(func() {
		dir, err := pgBinDir()
		if err != nil {
			pgBin.kerr = err
			return
		}
		out, err := exec.Command(filepath.Join(dir, "postgres"), "--describe-config").Output()
		if err != nil {
			pgBin.kerr = fmt.Errorf("list PostgreSQL's settings (postgres --describe-config): %w", err)
			return
		}
		pgBin.keys = map[string]bool{}
		for _, l := range strings.Split(string(out), "\n") {
			if name, _, ok := strings.Cut(l, "\t"); ok && name != "" {
				pgBin.keys[strings.ToLower(name)] = true
			}
		}
	})
	return pgBin.keys, pgBin.kerr
}

// pgReserved are settings rumbench sets itself for the managed server.
var pgReserved = map[string]bool{
	"port": true, "listen_addresses": true, "unix_socket_directories": true, "data_directory": true,
	"config_file": true, "hba_file": true, "ident_file": true, "logging_collector": true,
}
