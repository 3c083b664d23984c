package launch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"rumbench/internal/engine"
	"rumbench/internal/managed"
	"rumbench/internal/memcg"
	"rumbench/internal/model"
	"rumbench/internal/results"
	"rumbench/internal/runner"
	"rumbench/internal/units"
)

// Isolator runs an embedded engine in a child process (the same binary)
// inside a fresh memory cgroup, relays its output, forwards Ctrl-C, records
// what the cgroup used in the child's run.json and removes the cgroup.
type Isolator struct {
	Mem *Memory
	// Invocation is the command line rumbench was started with: the child
	// runs it plus the --child-* flags.
	Invocation     []string
	Stdout, Stderr io.Writer
	// BadInputExit is the exit code of a child that refused its input.
	BadInputExit int
}

// Run runs the child with the invocation plus extra arguments; bundle is
// the directory the child writes (Out/<engine>), dataDir the engine's data
// dir ("" for a temporary one). It reports false, nil for a server engine,
// which is not run in a child.
func (iso *Isolator) Run(ctx context.Context, eng, bundle, dataDir string, extra ...string) (bool, error) {
	return iso.RunVariant(ctx, eng, eng, bundle, dataDir, extra...)
}

// RunVariant is Run for the variant labelled label of engine eng: the
// child is told the label (--child-engine) and names its cgroup by it; the
// limit is the engine's.
func (iso *Isolator) RunVariant(ctx context.Context, label, eng, bundle, dataDir string, extra ...string) (bool, error) {
	if d, err := engine.Lookup(eng); err == nil && d.Kind() == model.Server {
		return false, nil // a managed server gets its own cgroup
	}
	exe, err := os.Executable()
	if err != nil {
		return true, fmt.Errorf("find rumbench's own binary for the engine's child process: %w", err)
	}
	g, err := iso.Mem.Ctl.New(label, iso.Mem.LimitFor(eng))
	if err != nil {
		return true, err
	}
	defer func() {
		if rerr := g.Remove(); rerr != nil {
			fmt.Fprintf(iso.Stderr, "rumbench: %v\n", rerr)
		}
	}()
	args := append(append([]string(nil), iso.Invocation...), "--child-engine", label, "--child-cgroup", g.Path)
	args = append(args, extra...)
	if dataDir == "" {
		// The parent owns a temporary data dir, so it is removed even when
		// the child is killed (by the OOM killer, say).
		tmp, err := os.MkdirTemp("", "rumbench-"+label+"-")
		if err != nil {
			return true, fmt.Errorf("create temporary data dir: %w", err)
		}
		defer os.RemoveAll(tmp)
		args = append(args, "--child-data-dir", tmp)
	}
	cmd := exec.Command(exe, args...)
	cmd.Stdout, cmd.Stderr = iso.Stdout, iso.Stderr
	// Its own process group: a terminal's Ctrl-C reaches the parent only,
	// which forwards exactly one interrupt (a second one would kill the
	// child before it saved its results). It dies with the parent.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Env = childEnv(os.Environ())
	if err := cmd.Start(); err != nil {
		return true, fmt.Errorf("start the child process of %s: %w", label, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-done:
	case <-ctx.Done():
		cmd.Process.Signal(os.Interrupt)
		werr = <-done
	}
	if _, err := os.Stat(filepath.Join(bundle, results.RunFile)); err == nil {
		if err := results.SetMemoryLimit(bundle, g.Stats()); err != nil {
			fmt.Fprintf(iso.Stderr, "rumbench: record the cgroup's usage: %v\n", err)
		}
	}
	if werr == nil {
		return true, nil
	}
	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		switch code := ee.ExitCode(); {
		case ctx.Err() != nil:
			return true, ctx.Err()
		case code == iso.BadInputExit:
			return true, &runner.BadInputError{Err: fmt.Errorf("engine %s: its child process refused the input (its error is above)", label)}
		case code == -1:
			st := g.Stats()
			if st.OOMKills != nil && *st.OOMKills > 0 {
				return true, fmt.Errorf("engine %s was killed by the OOM killer: its memory outgrew --memory-limit %s (peak %s); give a larger limit, or a smaller cache (--cache-size) or buffers (--engine-opt)", label, units.WholeMiB(g.Limit, "MB"), fmtPeak(st))
			}
			return true, fmt.Errorf("engine %s: its child process was killed (%v)", label, werr)
		default:
			return true, fmt.Errorf("engine %s: its child process failed with exit code %d (its error is above)", label, code)
		}
	}
	return true, fmt.Errorf("engine %s: child process: %w", eng, werr)
}

// MallocArenas is the C allocator's arena count in an engine's child
// process (MALLOC_ARENA_MAX, unless the environment sets it): the engines'
// caches and memtables are C memory (cgo: Pebble's, RocksDB's, WiredTiger's,
// SQLite's), and glibc's default of 8 arenas per core keeps freed blocks in
// many arenas at once. Under --memory-limit 64MB that slack outgrew
// pebble's whole budget in the query steps (66MB resident, OOM-killed);
// with 2 arenas the run peaked at 55MB.
const MallocArenas = "2"

// childEnv is the environment of an engine's child process.
func childEnv(env []string) []string {
	for _, kv := range env {
		if strings.HasPrefix(kv, "MALLOC_ARENA_MAX=") {
			return env
		}
	}
	return append(env, "MALLOC_ARENA_MAX="+MallocArenas)
}

func fmtPeak(m *results.MemoryCgroup) string {
	if m.PeakBytes == nil {
		return "unknown"
	}
	return units.WholeMiB(*m.PeakBytes, "MB")
}

// serverCgroup puts a managed server in a fresh memory cgroup: returned are
// the BeforeStart hook, the reader of its usage and the cleanup.
func (ms *Memory) serverCgroup(label, eng string) (func(*exec.Cmd) error, func() *results.MemoryCgroup, func() error, error) {
	g, err := ms.Ctl.New(label, ms.LimitFor(eng))
	if err != nil {
		return nil, nil, nil, err
	}
	var dirFD = -1
	before := func(cmd *exec.Cmd) error {
		if g.Version() == 2 {
			// Born in the cgroup, with its whole tree.
			fd, err := syscall.Open(g.Path, syscall.O_RDONLY|syscall.O_DIRECTORY, 0)
			if err != nil {
				return fmt.Errorf("open cgroup %s: %w", g.Path, err)
			}
			dirFD = fd
			cmd.SysProcAttr.UseCgroupFD = true
			cmd.SysProcAttr.CgroupFD = fd
			return nil
		}
		// v1 cannot start a process in a cgroup: rumbench's cgroup-exec
		// joins it and then execs the server (same pid).
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		if c := cmd.SysProcAttr.Credential; c != nil {
			// The server runs as an unprivileged user, who moves itself.
			if err := os.Chown(g.ProcsFile(), int(c.Uid), int(c.Gid)); err != nil {
				return fmt.Errorf("let the server's user join cgroup %s: %w", g.Path, err)
			}
		}
		cmd.Args = append([]string{exe, "cgroup-exec", g.Path, cmd.Path}, cmd.Args...)
		cmd.Path = exe
		return nil
	}
	cleanup := func() error {
		if dirFD >= 0 {
			syscall.Close(dirFD)
		}
		return g.Remove()
	}
	return before, g.Stats, cleanup, nil
}

// CgroupExec is `rumbench cgroup-exec CGROUP PROG ARGV0 ARGS...`: join
// CGROUP, then become PROG (how a v1 cgroup gets a managed server).
func CgroupExec(args []string) error {
	if len(args) < 3 {
		return &runner.BadInputError{Err: errors.New("cgroup-exec CGROUP PROGRAM ARGV0 [ARGS...]")}
	}
	if err := memcg.Join(args[0]); err != nil {
		return err
	}
	return syscall.Exec(args[1], args[2:], os.Environ())
}

// ManagedMemory wraps a server starter so each managed server runs in its
// own memory cgroup, removed when the server stops. The starter is called
// with a variant's label (name), engineOf gives its engine: the cgroup is
// named by the label, its limit is the engine's.
func ManagedMemory(ms *Memory, engineOf func(label string) string, start func(ctx context.Context, name, dataDir string, before func(*exec.Cmd) error) (*runner.Server, error)) runner.ServerStarter {
	return func(ctx context.Context, name, dataDir string) (*runner.Server, error) {
		eng := engineOf(name)
		if ms == nil || ms.Ctl == nil || !managed.IsManageable(eng) {
			return start(ctx, name, dataDir, nil)
		}
		before, stats, cleanup, err := ms.serverCgroup(name, eng)
		if err != nil {
			return nil, err
		}
		srv, err := start(ctx, name, dataDir, before)
		if err != nil || srv == nil {
			cleanup()
			return srv, err
		}
		stop := srv.Stop
		srv.Stop = func() error {
			err := stop()
			if cerr := cleanup(); err == nil {
				err = cerr
			}
			return err
		}
		srv.MemoryCgroup = stats
		return srv, nil
	}
}
