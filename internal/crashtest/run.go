package crashtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"rumbench/internal/engine"
	"rumbench/internal/managed"
	"rumbench/internal/model"
)

// ChildCommand is the hidden subcommand of rumbench that runs an embedded
// engine for the crash test (Child); its one argument is the Spec as JSON.
const ChildCommand = "__crashtest-child"

// Spec is one engine's crash test.
type Spec struct {
	Engine string `json:"engine"`
	// Label names a variant of Engine (--engine LABEL=ENGINE); "" for a
	// bare engine.
	Label   string            `json:"label,omitempty"`
	DataDir string            `json:"data_dir"`
	Options map[string]string `json:"options"`
	Durable bool              `json:"durable"`
	Shape   Shape             `json:"shape"`
	// KillAfter is how long the clients insert before the kill (at least
	// until every table has acknowledged rows).
	KillAfter time.Duration `json:"kill_after"`
	// Exe is the rumbench binary that runs the child (embedded engines).
	Exe string `json:"-"`
	// ServerSettings go to a managed server (--server-opt).
	ServerSettings []managed.Setting `json:"-"`
	Log            io.Writer         `json:"-"`
}

// Run runs the crash test of s.Engine and checks the result.
func Run(ctx context.Context, s Spec) (*Result, error) {
	d, err := engine.Lookup(s.Engine)
	if err != nil {
		return nil, err
	}
	if s.Log == nil {
		s.Log = io.Discard
	}
	r := &Result{Engine: s.Engine, Label: s.Label, Durable: s.Durable, Settings: maps.Clone(s.Options)}
	if d.Kind() == model.Server {
		return r, runServer(ctx, s, r)
	}
	return r, runEmbedded(ctx, s, r)
}

// runEmbedded runs the engine in a child process, kills it with SIGKILL
// and checks the data dir reopened in this process.
func runEmbedded(ctx context.Context, s Spec, r *Result) error {
	spec, err := json.Marshal(s)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, s.Exe, ChildCommand, string(spec))
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the engine's child process: %w", err)
	}
	acks := Acks{}
	var mu sync.Mutex
	ready := make(chan struct{})
	readDone := make(chan error, 1)
	go func() {
		// Every line the child wrote before it died is in the pipe: the
		// reader drains it to EOF.
		sc := bufio.NewScanner(out)
		var rerr error
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			switch {
			case len(f) == 1 && f[0] == "ready":
				close(ready)
			case len(f) == 4 && f[0] == "ack":
				first, e1 := strconv.ParseInt(f[2], 10, 64)
				last, e2 := strconv.ParseInt(f[3], 10, 64)
				mu.Lock()
				if e1 != nil || e2 != nil {
					rerr = fmt.Errorf("child sent %q", sc.Text())
				} else if err := acks.Add(f[1], first, last); err != nil && rerr == nil {
					rerr = err
				}
				mu.Unlock()
			}
		}
		readDone <- rerr
	}()
	var werr, readErr error
	exited := make(chan struct{})
	go func() {
		readErr = <-readDone // every line is read before Wait closes the pipe
		werr = cmd.Wait()
		close(exited)
	}()
	fail := func(what string) error {
		cmd.Process.Kill()
		<-exited
		return fmt.Errorf("%s child %s: %s", s.Engine, what, lastLine(stderr.String()))
	}
	select {
	case <-ready:
	case <-exited:
		return fmt.Errorf("%s child failed before creating its tables (%v): %s", s.Engine, werr, lastLine(stderr.String()))
	case <-time.After(2 * time.Minute):
		return fail("did not create its tables within 2 minutes")
	case <-ctx.Done():
		return fail("interrupted")
	}
	deadline := time.Now().Add(s.KillAfter)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
wait:
	for {
		mu.Lock()
		all := len(acks) == s.Shape.Clients
		mu.Unlock()
		if all && time.Now().After(deadline) {
			break
		}
		select {
		case <-exited:
			break wait
		case <-ctx.Done():
			return fail("interrupted")
		case <-tick.C:
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fail("could not be killed")
	}
	<-exited
	var ee *exec.ExitError
	if !errors.As(werr, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		return fmt.Errorf("%s child ended before the kill (%v): %s", s.Engine, werr, lastLine(stderr.String()))
	}
	if readErr != nil {
		return fmt.Errorf("%s child's acknowledgements: %w", s.Engine, readErr)
	}
	r.Killed = fmt.Sprintf("child pid %d killed (SIGKILL)", cmd.Process.Pid)
	fmt.Fprintf(s.Log, "crashtest %s: %s after %d acknowledged commits\n", s.Engine, r.Killed, countBatches(acks, s.Shape))

	db, err := engine.Open(ctx, s.Engine, model.Config{DataDir: s.DataDir, Options: s.Options})
	if err != nil {
		return fmt.Errorf("reopen %s after the crash: %w", s.Engine, err)
	}
	defer db.Close()
	return Check(ctx, db, s.Shape, acks, r)
}

func countBatches(a Acks, s Shape) int64 {
	var n int64
	for _, last := range a {
		n += last / int64(s.RowsPerCommit)
	}
	return n
}

// Child runs in the child process: it opens the engine, creates the tables,
// prints "ready", then inserts from every client until killed, printing
// "ack TABLE FIRST LAST" after each commit returned. Each line is one
// write(2) on the pipe, so the parent sees whole lines.
func Child(ctx context.Context, specJSON string, out *os.File) error {
	var s Spec
	if err := json.Unmarshal([]byte(specJSON), &s); err != nil {
		return fmt.Errorf("crashtest child: bad spec: %w", err)
	}
	db, err := engine.Open(ctx, s.Engine, model.Config{DataDir: s.DataDir, Options: s.Options})
	if err != nil {
		return err
	}
	defer db.Close()
	if err := s.Shape.Create(ctx, db); err != nil {
		return err
	}
	if _, err := out.WriteString("ready\n"); err != nil {
		return err
	}
	var mu sync.Mutex
	errs := make(chan error, s.Shape.Clients)
	for c := 0; c < s.Shape.Clients; c++ {
		go func() {
			errs <- s.Shape.insertLoop(ctx, db, c, func(table string, first, last int64) {
				line := "ack " + table + " " + strconv.FormatInt(first, 10) + " " + strconv.FormatInt(last, 10) + "\n"
				mu.Lock()
				out.WriteString(line)
				mu.Unlock()
			})
		}()
	}
	return <-errs
}

// runServer starts a managed server, inserts from this process, kills the
// server's main process with SIGKILL, restarts it on the same data and
// checks.
func runServer(ctx context.Context, s Spec, r *Result) error {
	if !managed.IsManageable(s.Engine) {
		return fmt.Errorf("engine %s has no managed server: crashtest kills the server, so it must start it", s.Engine)
	}
	srv, err := managed.Start(ctx, managed.Spec{Engine: s.Engine, Dir: s.DataDir, Settings: s.ServerSettings, Keep: true, Log: s.Log})
	if err != nil {
		return err
	}
	dir := srv.Dir()
	if s.DataDir == "" {
		// A temporary directory of the first server, kept for the restart.
		defer os.RemoveAll(dir)
	}
	stopped := false
	defer func() {
		if !stopped {
			srv.Stop()
		}
	}()
	cfg := model.Config{DSN: srv.DSN(), Database: "rumbench", Options: s.Options}
	db, err := engine.Open(ctx, s.Engine, cfg)
	if err != nil {
		return err
	}
	if err := s.Shape.Create(ctx, db); err != nil {
		db.Close()
		return err
	}
	acks := Acks{}
	var mu sync.Mutex
	var ackErr error
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for c := 0; c < s.Shape.Clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.Shape.insertLoop(cctx, db, c, func(table string, first, last int64) {
				mu.Lock()
				if err := acks.Add(table, first, last); err != nil && ackErr == nil {
					ackErr = err
				}
				mu.Unlock()
			})
		}()
	}
	deadline := time.Now().Add(s.KillAfter)
	for {
		mu.Lock()
		all := len(acks) == s.Shape.Clients
		mu.Unlock()
		if (all && time.Now().After(deadline)) || ctx.Err() != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	pid := srv.Pid()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return fmt.Errorf("kill the %s server (pid %d): %w", s.Engine, pid, err)
	}
	// The clients' inserts fail now; acknowledgements stop with them.
	wg.Wait()
	cancel()
	db.Close()
	mu.Lock()
	final := maps.Clone(acks)
	mu.Unlock()
	if ackErr != nil {
		return ackErr
	}
	r.Killed = fmt.Sprintf("server pid %d killed (SIGKILL)", pid)
	fmt.Fprintf(s.Log, "crashtest %s: %s after %d acknowledged commits\n", s.Engine, r.Killed, countBatches(final, s.Shape))
	// Stop ends what is left of the server's process group and keeps its
	// directory; the restart recovers from what the kill left on disk.
	srv.Stop()
	stopped = true
	srv2, err := managed.Start(ctx, managed.Spec{Engine: s.Engine, Dir: dir, Settings: s.ServerSettings, Log: s.Log})
	if err != nil {
		return fmt.Errorf("restart the %s server after the crash: %w", s.Engine, err)
	}
	defer srv2.Stop()
	cfg.DSN = srv2.DSN()
	db2, err := engine.Open(ctx, s.Engine, cfg)
	if err != nil {
		return fmt.Errorf("reopen %s after the crash: %w", s.Engine, err)
	}
	defer db2.Close()
	return Check(ctx, db2, s.Shape, final, r)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
