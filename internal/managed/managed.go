// Package managed starts and stops private database servers for a run
// (--managed): a fresh PostgreSQL (initdb + postgres) or MariaDB
// (mariadb-install-db + mariadbd, with MyRocks loaded for the myrocks
// engine) from the installed binaries, with its own data directory, port,
// socket and pid file, configured by --server-opt settings.
//
// A server runs in its own process group (so a terminal's Ctrl-C reaches
// rumbench, which stops it cleanly, and not the server) with a parent-death
// signal (so it dies with rumbench even when rumbench is killed). Stop ends
// the whole group and removes the directory unless asked to keep it.
//
// PostgreSQL refuses to run as root; when rumbench runs as root, every
// managed server runs as the unprivileged system user "rumbench" (created
// with useradd when missing), and its directory is owned by that user.
package managed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"time"

	"rumbench/internal/model"
)

// Setting is one server configuration value (--server-opt key=value).
type Setting struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Spec says which server to start and how.
type Spec struct {
	// Engine is the rumbench engine the server is for: postgres, innodb or
	// myrocks.
	Engine string
	// Dir is the directory the server lives in (created when missing; it
	// must be empty or hold a server a previous run kept). Empty means a new
	// temporary directory.
	Dir string
	// Settings are the server configuration overrides, in order.
	Settings []Setting
	// Install is the installation the server runs: for postgres the
	// directory holding initdb and postgres (or one with them in bin/), for
	// innodb and myrocks MariaDB's base directory (holding bin/ or sbin/
	// with mariadbd and mariadb-install-db, and share/). Empty means the
	// system's, found as CheckInstall describes. Two servers from two
	// installations (two versions, two builds) run side by side.
	Install string
	// Keep keeps Dir (and the data) after Stop; otherwise Stop removes what
	// Start created.
	Keep bool
	// Log receives progress lines (start and stop times); nil discards.
	Log io.Writer
	// BeforeStart, when set, is called with the server's command (not the
	// initdb/install command) just before it starts. It is where a memory
	// cgroup wraps the server: set cmd.SysProcAttr.UseCgroupFD/CgroupFD
	// (the process is born in the cgroup, with its whole tree), or replace
	// cmd.Path/cmd.Args with a wrapper. SysProcAttr is already set.
	BeforeStart func(cmd *exec.Cmd) error
}

// RejectedError is a server refusing its configuration: Line is the
// server's own error line from its log. The caller treats it as bad input.
type RejectedError struct {
	Engine string
	Line   string
}

func (e *RejectedError) Error() string {
	return fmt.Sprintf("managed %s server rejected its settings: %s (fix or remove the --server-opt value)", e.Engine, e.Line)
}

// ErrBadInstall is wrapped by errors about an installation directory given
// for a server (Spec.Install) that does not hold the server's binaries: the
// caller's input.
var ErrBadInstall = errors.New("bad server installation")

// ErrBadDir is wrapped by errors about the directory given for a server
// (not empty, not reachable by the server's user): the caller's input.
var ErrBadDir = errors.New("bad --data-dir")

// Server is a running private server.
type Server struct {
	spec    Spec
	fl      flavor
	dir     string // Spec.Dir or the temporary directory
	srvDir  string // dir/server: owned by the server's user
	dataDir string // srvDir/data
	logPath string
	port    int
	cred    *syscall.Credential
	uid     int
	gid     int

	cmd  *exec.Cmd
	done chan struct{}
	// created lists what Start created, removed by Stop unless kept.
	created []string
	// reused: the server dir was kept by an earlier run.
	reused bool

	settings map[string]string
	initDur  time.Duration
	startDur time.Duration

	stopOnce sync.Once
	stopErr  error
}

// flavor is one kind of server (one file each: postgres.go, mariadb.go).
type flavor interface {
	// name is the product, for messages.
	name() string
	// check finds the binaries, returning an error naming what is missing
	// and the package to install or the directory to give.
	check() error
	// installDir is the installation's directory (check has passed).
	installDir() string
	// initialized reports whether dataDir already holds a server.
	initialized(dataDir string) bool
	// initCmd creates a fresh data dir (initdb, mariadb-install-db).
	initCmd(s *Server) *exec.Cmd
	// serverCmd runs the server in the foreground, logging to stderr.
	serverCmd(s *Server) *exec.Cmd
	// dsn addresses the server as its administrative user.
	dsn(s *Server) string
	// readBack connects, returning the server version and the effective
	// values of the given keys; a connection failure is returned as is
	// (the server is not ready yet).
	readBack(ctx context.Context, dsn string, keys []string) (version string, values map[string]string, err error)
	// stopSignal shuts the server down cleanly; deathSignal is sent by the
	// kernel when rumbench dies.
	stopSignal() syscall.Signal
	deathSignal() syscall.Signal
	// errorLine picks the line that says why the server failed from its
	// log; adjusted reports a value the server changed instead of
	// refusing (MariaDB's "adjusted to" warnings).
	errorLine(log string) string
	adjusted(log string) string
	// ownKey reports whether the server has setting key (lower case), as
	// --server-opt routes it, returning the key in the form it is
	// recorded (MariaDB's with underscores); reserved whether rumbench
	// sets it itself (port, directories, log); listHint says where the
	// server's settings are listed.
	ownKey(key string) (string, bool, error)
	reserved(key string) bool
	listHint() string
	// cacheSetting is the setting that sizes the server's main cache for
	// the engine (--cache-size); cacheValue writes bytes the way the
	// server reads that setting.
	cacheSetting() string
	cacheValue(bytes int64) string
}

// CacheSetting is the setting that sizes a managed server's cache for
// engine (PostgreSQL's shared_buffers, InnoDB's buffer pool, MyRocks'
// block cache); "" for an engine without a managed server.
func CacheSetting(engine string) string {
	fl, err := flavorFor(engine, "")
	if err != nil {
		return ""
	}
	return fl.cacheSetting()
}

// CacheValue writes bytes the way engine's server reads its CacheSetting.
func CacheValue(engine string, bytes int64) string {
	fl, err := flavorFor(engine, "")
	if err != nil {
		return strconv.FormatInt(bytes, 10)
	}
	return fl.cacheValue(bytes)
}

func flavorFor(engine, install string) (flavor, error) {
	switch engine {
	case "postgres":
		return postgresFlavor{install: install}, nil
	case "innodb":
		return &mariadbFlavor{install: install}, nil
	case "myrocks":
		return &mariadbFlavor{rocksdb: true, install: install}, nil
	}
	return nil, fmt.Errorf("engine %s has no managed server: --managed applies to postgres, innodb and myrocks", engine)
}

// Check reports whether a managed server for engine can be started here
// from the system's installation (binaries installed), without starting
// anything.
func Check(engine string) error { return CheckInstall(engine, "") }

// CheckInstall reports whether a managed server for engine can be started
// from the installation in dir (Spec.Install; "" for the system's: for
// postgres $RUMBENCH_PG_BINDIR or the newest /usr/lib/postgresql/*/bin, for
// MariaDB mariadbd and mariadb-install-db on PATH or in /usr/sbin,
// /usr/bin), without starting anything. A dir without the server's
// binaries is an error wrapping ErrBadInstall, one line naming what is
// missing and what to give instead.
func CheckInstall(engine, dir string) error {
	fl, err := flavorFor(engine, dir)
	if err != nil {
		return err
	}
	return fl.check()
}

// Start creates (or reuses, when kept by an earlier run) the server's data
// directory, starts the server on a free loopback port, waits until it
// accepts connections and reads back its settings. On any failure nothing is
// left running and what Start created is removed.
func Start(ctx context.Context, spec Spec) (_ *Server, err error) {
	fl, err := flavorFor(spec.Engine, spec.Install)
	if err != nil {
		return nil, err
	}
	if err := fl.check(); err != nil {
		return nil, err
	}
	if spec.Log == nil {
		spec.Log = io.Discard
	}
	s := &Server{spec: spec, fl: fl, done: make(chan struct{}), uid: os.Getuid(), gid: os.Getgid()}
	close(s.done) // no server process yet
	defer func() {
		if err != nil {
			s.Stop()
		}
	}()
	if err := s.prepareDirs(); err != nil {
		return nil, err
	}
	if fl.initialized(s.dataDir) {
		// A kept server starts with the settings it was created with (some,
		// like innodb_page_size, must match its files), overridden by the
		// ones given now.
		if err := s.loadSettings(); err != nil {
			return nil, err
		}
	} else {
		if entries, _ := os.ReadDir(s.dataDir); len(entries) > 0 {
			return nil, fmt.Errorf("managed %s: %w: %s holds data that is not a %s server (another engine's?): use another --data-dir", s.spec.Engine, ErrBadDir, s.dataDir, fl.name())
		}
		t0 := time.Now()
		if err := s.runInit(ctx); err != nil {
			return nil, err
		}
		s.initDur = time.Since(t0)
	}
	// A port found free can be taken by another process before the server
	// binds it: try again with another one.
	for attempt := 0; ; attempt++ {
		err = s.startServer(ctx)
		if err == nil || attempt == 2 || !portTaken(s.readLog()) {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	if err := s.saveSettings(); err != nil {
		return nil, err
	}
	if s.reused {
		// A server dir kept by an earlier run is removed at the end like a
		// new one unless kept again; a failed start leaves it as it was.
		s.created = append(s.created, s.srvDir)
	}
	fmt.Fprintf(spec.Log, "managed %s: %s pid %d on 127.0.0.1:%d, data dir %s (init %.1fs, start %.1fs)\n",
		spec.Engine, fl.name(), s.Pid(), s.port, s.dataDir, s.initDur.Seconds(), s.startDur.Seconds())
	return s, nil
}

// settingsFile in the server dir records the settings a server runs with,
// for a later run on the kept server.
const settingsFile = "settings.json"

func (s *Server) loadSettings() error {
	b, err := os.ReadFile(filepath.Join(s.srvDir, settingsFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("managed %s: %w", s.spec.Engine, err)
	}
	var saved []Setting
	if err := json.Unmarshal(b, &saved); err != nil {
		return fmt.Errorf("managed %s: %s: %w", s.spec.Engine, filepath.Join(s.srvDir, settingsFile), err)
	}
	merged := saved
	for _, st := range s.spec.Settings {
		found := false
		for i := range merged {
			if merged[i].Key == st.Key {
				merged[i].Value, found = st.Value, true
			}
		}
		if !found {
			merged = append(merged, st)
		}
	}
	s.spec.Settings = merged
	return nil
}

func (s *Server) saveSettings() error {
	b, err := json.Marshal(s.spec.Settings)
	if err == nil {
		err = os.WriteFile(filepath.Join(s.srvDir, settingsFile), b, 0o644)
	}
	if err != nil {
		return fmt.Errorf("managed %s: record the settings: %w", s.spec.Engine, err)
	}
	return nil
}

// prepareDirs creates dir/server (owned by the server's user) and finds
// the user.
func (s *Server) prepareDirs() error {
	dir := s.spec.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "rumbench-managed-"+s.spec.Engine+"-")
		if err != nil {
			return fmt.Errorf("managed %s: create temporary dir: %w", s.spec.Engine, err)
		}
		s.created = append(s.created, d)
		dir = d
	} else if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("managed %s: create %s: %w", s.spec.Engine, dir, err)
		}
		s.created = append(s.created, dir)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("managed %s: %w", s.spec.Engine, err)
	}
	s.dir = abs
	s.srvDir = filepath.Join(abs, "server")
	s.dataDir = filepath.Join(s.srvDir, "data")
	s.logPath = filepath.Join(s.srvDir, "server.log")
	if err := checkDirFree(abs, s.srvDir); err != nil {
		return fmt.Errorf("managed %s: %w", s.spec.Engine, err)
	}
	if os.Geteuid() == 0 {
		uid, gid, err := ensureUser()
		if err != nil {
			return fmt.Errorf("managed %s: %w", s.spec.Engine, err)
		}
		s.uid, s.gid = uid, gid
		s.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}
		// The server's user must be able to enter the directory.
		if err := allowTraverse(abs, uid, gid); err != nil {
			return fmt.Errorf("managed %s: %w", s.spec.Engine, err)
		}
	}
	switch err := os.Mkdir(s.srvDir, 0o750); {
	case err == nil:
		s.created = append(s.created, s.srvDir)
	case errors.Is(err, os.ErrExist):
		s.reused = true
	default:
		return fmt.Errorf("managed %s: create %s: %w", s.spec.Engine, s.srvDir, err)
	}
	if err := os.Chown(s.srvDir, s.uid, s.gid); err != nil {
		return fmt.Errorf("managed %s: give %s to the server's user: %w", s.spec.Engine, s.srvDir, err)
	}
	return nil
}

// checkDirFree accepts an empty dir, or one whose only entries are a
// server dir (kept by an earlier run) and rumbench's marker file.
func checkDirFree(dir, srvDir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("read %s: %w", dir, err)
	}
	for _, e := range entries {
		switch e.Name() {
		case "server", "RUMBENCH_ENGINE":
		default:
			return fmt.Errorf("%w: %s is not empty and holds no managed server (found %s): use an empty or new --data-dir", ErrBadDir, dir, e.Name())
		}
	}
	return nil
}

func (s *Server) runInit(ctx context.Context) error {
	c := s.fl.initCmd(s)
	cmd := exec.CommandContext(ctx, c.Path, c.Args[1:]...)
	logPath := filepath.Join(s.srvDir, "init.log")
	f, err := os.Create(logPath)
	if err != nil {
		return fmt.Errorf("managed %s: %w", s.spec.Engine, err)
	}
	defer f.Close()
	cmd.Stdout, cmd.Stderr = f, f
	s.prepareCmd(cmd)
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	err = cmd.Run()
	// initdb runs postgres, mariadb-install-db runs mariadbd: end any
	// helper left in the group.
	if cmd.Process != nil {
		killGroup(cmd.Process.Pid)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		b, _ := os.ReadFile(logPath)
		line := s.fl.errorLine(string(b))
		if line == "" {
			line = lastLine(string(b))
		}
		if len(s.spec.Settings) > 0 && line != "" {
			return &RejectedError{Engine: s.spec.Engine, Line: line}
		}
		return fmt.Errorf("managed %s: %s failed (%v): %s", s.spec.Engine, filepath.Base(cmd.Path), err, line)
	}
	return nil
}

// prepareCmd sets what every command of a managed server gets: its own
// process group, the server's user, a parent-death signal, a clean
// environment and the server dir as working directory.
func (s *Server) prepareCmd(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL, Credential: s.cred}
	cmd.Dir = s.srvDir
	cmd.Env = serverEnv(s.srvDir)
}

func (s *Server) startServer(ctx context.Context) error {
	port, err := freePort()
	if err != nil {
		return fmt.Errorf("managed %s: find a free port: %w", s.spec.Engine, err)
	}
	s.port = port
	logf, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("managed %s: %w", s.spec.Engine, err)
	}
	defer logf.Close() // the child has its own copy
	cmd := s.fl.serverCmd(s)
	cmd.Stdout, cmd.Stderr = logf, logf
	s.prepareCmd(cmd)
	cmd.SysProcAttr.Pdeathsig = s.fl.deathSignal()
	if s.spec.BeforeStart != nil {
		if err := s.spec.BeforeStart(cmd); err != nil {
			return fmt.Errorf("managed %s: prepare the server command: %w", s.spec.Engine, err)
		}
	}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("managed %s: start %s: %w", s.spec.Engine, cmd.Path, err)
	}
	s.cmd = cmd
	done := make(chan struct{})
	s.done = done
	go func() {
		cmd.Wait()
		close(done)
	}()
	keys := make([]string, 0, len(s.spec.Settings))
	for _, st := range s.spec.Settings {
		keys = append(keys, st.Key)
	}
	deadline := time.Now().Add(startTimeout)
	for {
		select {
		case <-done:
			killGroup(cmd.Process.Pid)
			return s.startFailure(fmt.Errorf("the server exited (%v)", cmd.ProcessState))
		case <-ctx.Done():
			s.stopProcess()
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		version, values, err := s.fl.readBack(pctx, s.fl.dsn(s), keys)
		cancel()
		if err == nil {
			s.startDur = time.Since(t0)
			if line := s.fl.adjusted(s.readLog()); line != "" {
				s.stopProcess()
				return &RejectedError{Engine: s.spec.Engine, Line: line}
			}
			s.recordSettings(version, values)
			return nil
		}
		if time.Now().After(deadline) {
			s.stopProcess()
			return s.startFailure(fmt.Errorf("not accepting connections after %s (%v)", startTimeout, err))
		}
	}
}

// startTimeout bounds the wait for a server to accept connections (InnoDB
// recovery or a large buffer pool take a while).
const startTimeout = 120 * time.Second

func (s *Server) startFailure(cause error) error {
	log := s.readLog()
	line := s.fl.errorLine(log)
	if line != "" && len(s.spec.Settings) > 0 && !portTaken(log) {
		return &RejectedError{Engine: s.spec.Engine, Line: line}
	}
	if line == "" {
		line = lastLine(log)
	}
	return fmt.Errorf("managed %s: %v: %s", s.spec.Engine, cause, line)
}

func (s *Server) readLog() string {
	b, _ := os.ReadFile(s.logPath)
	return string(b)
}

func (s *Server) recordSettings(version string, values map[string]string) {
	st := map[string]string{
		"managed":         "true",
		"managed_dir":     s.dataDir,
		"managed_init_s":  strconv.FormatFloat(s.initDur.Seconds(), 'f', 2, 64),
		"managed_start_s": strconv.FormatFloat(s.startDur.Seconds(), 'f', 2, 64),
		"managed_version": version,
		"managed_install": s.fl.installDir(),
		"managed_pid":     strconv.Itoa(s.Pid()),
		"managed_port":    strconv.Itoa(s.port),
	}
	for _, kv := range s.spec.Settings {
		st[model.ServerOptPrefix+kv.Key] = kv.Value
		st[kv.Key] = values[kv.Key]
	}
	s.settings = st
}

// DSN addresses the server as its administrative user (no password; it
// listens on 127.0.0.1 only).
func (s *Server) DSN() string { return s.fl.dsn(s) }

// Pid is the server's main process (the root of its process tree).
func (s *Server) Pid() int {
	if s.cmd == nil || s.cmd.Process == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

// Port is the server's TCP port on 127.0.0.1.
func (s *Server) Port() int { return s.port }

// Dir is the directory the server lives in; DataDir is the server's own
// data directory inside it.
func (s *Server) Dir() string     { return s.dir }
func (s *Server) DataDir() string { return s.dataDir }

// Version is the server's version as the running server reports it
// (PostgreSQL's server_version, MariaDB's VERSION()).
func (s *Server) Version() string { return s.settings["managed_version"] }

// Install is the installation the server runs (Spec.Install, or the
// system's as found).
func (s *Server) Install() string { return s.fl.installDir() }

// Settings are what run.json records about the server: managed=true,
// init and start seconds, the version, the installation (managed_install),
// server_opt.<key> (as given) and <key> (as the running server reports it)
// for every override.
func (s *Server) Settings() map[string]string { return maps.Clone(s.settings) }

// SettingKeys lists Settings' keys, sorted.
func (s *Server) SettingKeys() []string {
	k := make([]string, 0, len(s.settings))
	for key := range s.settings {
		k = append(k, key)
	}
	sort.Strings(k)
	return k
}

// Stop shuts the server down (cleanly, then by force after a minute), ends
// anything left in its process group and removes what Start created unless
// Spec.Keep. It is safe to call more than once.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		t0 := time.Now()
		s.stopProcess()
		if s.spec.Keep {
			if s.cmd != nil {
				fmt.Fprintf(s.spec.Log, "managed %s: stopped in %.1fs; kept %s\n", s.spec.Engine, time.Since(t0).Seconds(), s.dir)
			}
			return
		}
		var errs []error
		// Newest first: the server dir before the dir holding it.
		for i := len(s.created) - 1; i >= 0; i-- {
			if err := os.RemoveAll(s.created[i]); err != nil {
				errs = append(errs, err)
			}
		}
		s.stopErr = errors.Join(errs...)
		if s.cmd != nil {
			fmt.Fprintf(s.spec.Log, "managed %s: stopped and removed in %.1fs\n", s.spec.Engine, time.Since(t0).Seconds())
		}
	})
	return s.stopErr
}

// stopProcess ends the server and everything in its process group.
func (s *Server) stopProcess() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	pid := s.cmd.Process.Pid
	select {
	case <-s.done:
	default:
		// A stopped server (SIGSTOP) would hold its shutdown signal until
		// the stop timeout: let it run first.
		SignalTree(pid, syscall.SIGCONT)
		syscall.Kill(pid, s.fl.stopSignal())
		select {
		case <-s.done:
		case <-time.After(stopTimeout):
			syscall.Kill(-pid, syscall.SIGKILL)
			<-s.done
		}
	}
	killGroup(pid)
}

// stopTimeout bounds a clean shutdown before the server is killed.
const stopTimeout = 60 * time.Second
