package profile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/procfs"

	"rumbench/internal/measure"
	"rumbench/internal/model"
	"rumbench/internal/results"
	"rumbench/internal/runner"
)

// Dir is the bundle's directory of profiles.
const Dir = "profiles"

// Frequency is perf's sampling rate, Hz: 99, off the beat of 100 Hz timers.
const Frequency = 99

// Factory profiles every step of each engine it is given (--profile). It
// must come before the system-metrics sampler among the run's observers,
// so perf is running before the step's first sample is taken.
func Factory(log io.Writer) runner.ObserverFactory {
	return func(ctx context.Context, db model.DB, dataDir, bundleDir string) (runner.Observer, error) {
		r := &Recorder{bundleDir: bundleDir, log: log, self: os.Getpid()}
		if po, ok := db.(model.ProcessOwner); ok {
			r.server = true
			pid, _, err := po.ServerProcess(ctx)
			switch {
			case err != nil:
				r.serverWhy = fmt.Sprintf("the server's processes cannot be profiled: %v", err)
			case pid <= 0:
				r.serverWhy = "the server's pid is unknown"
			default:
				r.serverPid = pid
				comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
				if err != nil {
					r.serverWhy = fmt.Sprintf("read the server's command name: %v", err)
				}
				r.serverComm = strings.TrimSpace(string(comm))
			}
		}
		if _, err := exec.LookPath("perf"); err != nil {
			r.noPerf = "perf is not installed (Debian: apt-get install linux-perf)"
		}
		return r, nil
	}
}

// Recorder is the profiling observer of one engine: for each step the
// client's Go CPU profile (runtime/pprof) and perf's samples of the
// measured processes (an embedded engine's: this process; a server's: its
// processes, found by command name), cpu-clock at Frequency with call
// graphs. perf runs outside rumbench's process tree, so the sampler never
// counts it as the client's or the engine's; its CPU over the step is
// recorded apart.
type Recorder struct {
	bundleDir, serverComm, serverWhy string
	log                              io.Writer
	self, serverPid                  int
	// server: the engine is a server (its processes, not this one, are
	// profiled by perf); noPerf: why perf cannot run at all.
	server bool
	noPerf string

	step      string
	goProf    bytes.Buffer
	goWhy     string
	perfPid   int
	perfData  string
	perfWhy   string
	perfCPUUs *int64
}

// StepStart starts both profilers.
func (r *Recorder) StepStart(step string, _ results.StepDesc) {
	r.step, r.goWhy, r.perfWhy, r.perfPid, r.perfCPUUs = step, "", "", 0, nil
	r.goProf.Reset()
	if err := pprof.StartCPUProfile(&r.goProf); err != nil {
		r.goWhy = fmt.Sprintf("the Go CPU profile could not start: %v", err)
	}
	switch {
	case r.noPerf != "":
		r.perfWhy = r.noPerf
	case r.server && r.serverWhy != "":
		r.perfWhy = r.serverWhy
	default:
		if err := r.startPerf(); err != nil {
			r.perfWhy = err.Error()
		}
	}
}

// startPerf starts perf record in the background, orphaned by a shell that
// exits at once, and waits until it records (its data file exists).
func (r *Recorder) startPerf() error {
	dir := os.TempDir()
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		// Off the device: perf's writes are not the engine's.
		dir = "/dev/shm"
	}
	f, err := os.CreateTemp(dir, "rumbench-perf-*.data")
	if err != nil {
		return fmt.Errorf("perf data file: %w", err)
	}
	f.Close()
	os.Remove(f.Name())
	r.perfData = f.Name()
	target := "-p " + strconv.Itoa(r.self)
	if r.server {
		// A server's backends come and go: every CPU, kept by command.
		target = "-a"
	}
	out, err := exec.Command("sh", "-c",
		`perf record -q -e cpu-clock -F `+strconv.Itoa(Frequency)+` -g -o "$1" `+target+` >/dev/null 2>"$1.log" </dev/null & echo $!`,
		"sh", r.perfData).Output()
	if err != nil {
		return fmt.Errorf("start perf record: %w", err)
	}
	if r.perfPid, err = strconv.Atoi(strings.TrimSpace(string(out))); err != nil {
		return fmt.Errorf("start perf record: pid %q: %w", out, err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; {
		if st, err := os.Stat(r.perfData); err == nil && st.Size() > 0 {
			return nil
		}
		if !alive(r.perfPid) {
			return fmt.Errorf("perf record exited at once: %s", r.perfLog())
		}
		if time.Now().After(deadline) {
			return errors.New("perf record did not start within 5 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (r *Recorder) perfLog() string {
	b, _ := os.ReadFile(r.perfData + ".log")
	s := strings.TrimSpace(string(b))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// alive: pid runs (a zombie nobody reaps has finished: perf is orphaned,
// and the container's init may not reap it).
func alive(pid int) bool {
	p, err := procfs.NewProc(pid)
	if err != nil {
		return false
	}
	st, err := p.Stat()
	return err == nil && st.State != "Z"
}

// Interval implements runner.Observer.
func (r *Recorder) Interval(*measure.Interval) map[string]any { return nil }

// StepStop stops the Go profile, reads perf's CPU so far and tells it to
// stop; it does not wait for perf to write its file (StepEnd does).
func (r *Recorder) StepStop(*measure.Clock, int64) {
	if r.goWhy == "" {
		pprof.StopCPUProfile()
	}
	if r.perfPid == 0 {
		return
	}
	if p, err := procfs.NewProc(r.perfPid); err == nil {
		if st, err := p.Stat(); err == nil {
			us := int64(st.CPUTime() * 1e6)
			r.perfCPUUs = &us
		}
	}
	syscall.Kill(r.perfPid, syscall.SIGINT)
}

// StepEnd waits for perf's file, converts it, and writes both profiles
// into the bundle.
func (r *Recorder) StepEnd(s *results.Step, _ *measure.Clock) {
	p := &results.Profiles{ClientWhy: r.goWhy, ServerWhy: r.perfWhy, PerfCPUUs: r.perfCPUUs}
	dir := filepath.Join(r.bundleDir, Dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		p.ClientWhy, p.ServerWhy = err.Error(), err.Error()
		s.Profiles = p
		return
	}
	if r.goWhy == "" {
		name := filepath.Join(Dir, s.Step+".client.pb.gz")
		if err := os.WriteFile(filepath.Join(r.bundleDir, name), r.goProf.Bytes(), 0o644); err != nil {
			p.ClientWhy = err.Error()
		} else {
			p.Client = name
			if gp, err := parsePprof(r.goProf.Bytes()); err == nil {
				p.ClientSamples = len(gp.Sample)
			}
		}
	}
	if r.perfPid != 0 {
		name := filepath.Join(Dir, s.Step+".server.pb.gz")
		n, scope, err := r.convertPerf(filepath.Join(r.bundleDir, name))
		if err != nil {
			p.ServerWhy = err.Error()
		} else {
			p.Server, p.ServerSamples, p.ServerScope = name, n, scope
		}
	}
	s.Profiles = p
}

// convertPerf waits for perf to finish its file, converts the kept
// samples and writes them to path.
func (r *Recorder) convertPerf(path string) (samples int, scope string, err error) {
	defer os.Remove(r.perfData)
	defer os.Remove(r.perfData + ".log")
	for deadline := time.Now().Add(60 * time.Second); alive(r.perfPid); {
		if time.Now().After(deadline) {
			syscall.Kill(r.perfPid, syscall.SIGKILL)
			return 0, "", errors.New("perf record did not finish its file within 60 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	out, err := exec.Command("perf", "script", "-i", r.perfData, "-F", "comm,pid,tid,period,ip,sym,dso").Output()
	if err != nil {
		return 0, "", fmt.Errorf("perf script: %w (%s)", err, r.perfLog())
	}
	keep := func(pid int, _ string) bool { return pid == r.self }
	scope = fmt.Sprintf("this process (pid %d): the client and the embedded engine", r.self)
	if r.server {
		keep = func(pid int, comm string) bool { return pid == r.serverPid || comm == r.serverComm }
		scope = fmt.Sprintf("the server's processes: pid %d and every process named %q", r.serverPid, r.serverComm)
	}
	prof, err := FromPerfScript(bytes.NewReader(out), keep)
	if err != nil {
		return 0, "", err
	}
	f, err := os.Create(path)
	if err != nil {
		return 0, "", err
	}
	if err := prof.Write(f); err != nil {
		f.Close()
		return 0, "", fmt.Errorf("write %s: %w", path, err)
	}
	return len(prof.Sample), scope, f.Close()
}

// Close implements runner.Observer: a perf still running (a step that
// ended without its StepEnd: an interrupted run) is stopped, and its files
// in /dev/shm are removed.
func (r *Recorder) Close() error {
	if r.perfPid != 0 && alive(r.perfPid) {
		syscall.Kill(r.perfPid, syscall.SIGINT)
		for deadline := time.Now().Add(5 * time.Second); alive(r.perfPid) && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if r.perfData != "" {
		os.Remove(r.perfData)
		os.Remove(r.perfData + ".log")
	}
	return nil
}
