// Command rumbench-audit is the Go half of scripts/audit.sh: it stamps the
// output of sysstat's iostat and pidstat with the time each report was
// printed, samples a server's process tree once a second from the kernel's
// cumulative counters, and compares a rumbench bundle's figures with what
// those tools counted in each step's window (docs/metrics.md, "The audit").
//
//	rumbench-audit run -pidfile FILE [-delay 2s] [-linger 3s] -- COMMAND [ARG...]
//	rumbench-audit stamp -o FILE -- COMMAND [ARG...]
//	rumbench-audit proctree -pid PID -o FILE [-every 1s]
//	rumbench-audit compare -bundle DIR -iostat FILE -device DEV -client FILE [-server FILE -server-root PID -tree FILE]
//
// compare exits 1 when a figure differs by more than the tolerance, 2
// when it cannot compare.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"rumbench/internal/audit"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	code := 0
	switch os.Args[1] {
	case "run":
		code, err = run(os.Args[2:])
	case "stamp":
		err = stamp(os.Args[2:])
	case "proctree":
		err = proctree(os.Args[2:])
	case "compare":
		code, err = compare(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "rumbench-audit %s: %v\n", os.Args[1], err)
		os.Exit(2)
	}
	os.Exit(code)
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: rumbench-audit stamp -o FILE -- COMMAND [ARG...] | proctree -pid PID -o FILE | compare -bundle DIR ... (see scripts/audit.sh)")
	os.Exit(2)
}

// run starts a command -delay after its pid exists (through /bin/sh,
// which sleeps and then execs it in the same process), so pidstat -p can
// watch it from before it starts; it writes the pid to -pidfile. When the
// command exits it is left a zombie for -linger before it is reaped: a
// zombie's /proc/PID/stat and io still hold its final counters, which
// pidstat reads, while a reaped process's last partial second is lost to
// it. SIGTERM and SIGINT are passed on. run exits with the command's
// status.
func run(args []string) (int, error) {
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	pidfile := fs.String("pidfile", "", "file to write the command's pid to")
	delay := fs.Duration("delay", 2*time.Second, "wait this long after the pid exists before starting the command")
	linger := fs.Duration("linger", 3*time.Second, "leave the exited command a zombie this long before reaping it")
	fs.Parse(args)
	if *pidfile == "" || fs.NArg() == 0 {
		return 2, errors.New("need -pidfile FILE -- COMMAND")
	}
	sh := append([]string{"-c", `sleep "$0" && exec "$@"`, strconv.FormatFloat(delay.Seconds(), 'f', 3, 64)}, fs.Args()...)
	cmd := exec.Command("/bin/sh", sh...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	if err := cmd.Start(); err != nil {
		return 2, err
	}
	go func() {
		for s := range sig {
			cmd.Process.Signal(s)
		}
	}()
	if err := os.WriteFile(*pidfile, []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return 2, err
	}
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 2, fmt.Errorf("wait for %d: %w", cmd.Process.Pid, err)
		}
		break
	}
	time.Sleep(*linger)
	err := cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), nil
	}
	return 0, err
}

// stamp runs a command and writes its output to a file, each line stamped
// with the time it was read; SIGTERM and SIGINT are passed on to it.
func stamp(args []string) error {
	fs := flag.NewFlagSet("stamp", flag.ExitOnError)
	out := fs.String("o", "", "stamped log to write")
	fs.Parse(args)
	if *out == "" || fs.NArg() == 0 {
		return errors.New("need -o FILE -- COMMAND")
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	defer f.Close()
	bw := bufio.NewWriter(f)
	cmd := exec.Command(fs.Arg(0), fs.Args()[1:]...)
	cmd.Stderr = os.Stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	if err := audit.WriteLine(bw, time.Now(), audit.StartMark+" "+strings.Join(fs.Args(), " ")); err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() {
		for s := range sig {
			cmd.Process.Signal(s)
		}
	}()
	serr := audit.Stamp(pipe, bw, time.Now)
	werr := cmd.Wait()
	code := 0
	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		code = ee.ExitCode()
	}
	if err := audit.WriteLine(bw, time.Now(), fmt.Sprintf("%s exit=%d", audit.EndMark, code)); err != nil {
		return err
	}
	return serr
}

// proctree samples the tree of -pid every -every until SIGTERM or SIGINT,
// or until the root is gone.
func proctree(args []string) error {
	fs := flag.NewFlagSet("proctree", flag.ExitOnError)
	pid := fs.Int("pid", 0, "root of the tree (a server's postmaster)")
	out := fs.String("o", "", "stamped log to write")
	every := fs.Duration("every", time.Second, "time between readings")
	proc := fs.String("proc", "/proc", "proc filesystem")
	fs.Parse(args)
	if *pid <= 0 || *out == "" {
		return errors.New("need -pid PID -o FILE")
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	defer f.Close()
	bw := bufio.NewWriter(f)
	if err := audit.WriteLine(bw, time.Now(), fmt.Sprintf("%s proctree -pid %d", audit.StartMark, *pid)); err != nil {
		return err
	}
	stop := make(chan struct{})
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	go func() { <-sig; close(stop) }()
	err = audit.SampleTree(*proc, *pid, *every, bw, stop)
	audit.WriteLine(bw, time.Now(), audit.EndMark)
	return err
}

// compare prints the audit's table for one engine's bundle.
func compare(args []string) (int, error) {
	fs := flag.NewFlagSet("compare", flag.ExitOnError)
	bundle := fs.String("bundle", "", "the engine's bundle directory (<out>/<engine>)")
	iostat := fs.String("iostat", "", "stamped log of iostat -dkx -y 1 DEVICE")
	device := fs.String("device", "", "the device iostat watched (vda)")
	client := fs.String("client", "", "stamped log of pidstat -u -d -h -p RUMBENCH_PID 1")
	server := fs.String("server", "", "stamped log of pidstat -u -d -h for the server's processes (server engines)")
	root := fs.Int("server-root", 0, "the server's root pid, left out of -server (its counters hold its reaped children's)")
	tree := fs.String("tree", "", "log of rumbench-audit proctree for the server's root (server engines)")
	var o audit.Options
	fs.Float64Var(&o.Tolerance, "tolerance", 0.10, "largest relative difference that passes")
	fs.Float64Var(&o.MinSeconds, "min-seconds", 15, "steps shorter than this are shown, not judged")
	fs.Float64Var(&o.MinCovered, "min-covered", 0.95, "least part of a window a tool must cover to count")
	fs.Parse(args)
	if *bundle == "" {
		return 2, errors.New("need -bundle DIR")
	}
	b, err := audit.ReadBundle(*bundle)
	if err != nil {
		return 2, err
	}
	sources := map[string][]audit.Sample{}
	load := func(name, path string, parse func([]audit.Line) ([]audit.Sample, error)) error {
		if path == "" {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		lines, err := audit.ReadStamped(f)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		s, err := parse(lines)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		sources[name] = s
		return nil
	}
	errs := []error{
		load(audit.SrcIostat, *iostat, func(l []audit.Line) ([]audit.Sample, error) { return audit.ParseIostat(l, *device) }),
		load(audit.SrcClient, *client, func(l []audit.Line) ([]audit.Sample, error) { return audit.ParsePidstat(l, nil) }),
		load(audit.SrcServer, *server, func(l []audit.Line) ([]audit.Sample, error) {
			return audit.ParsePidstat(l, map[int]bool{*root: true})
		}),
		load(audit.SrcTree, *tree, audit.ParseTree),
	}
	if err := errors.Join(errs...); err != nil {
		return 2, err
	}
	res := audit.Compare(b, sources, o)
	res.Print(os.Stdout, o)
	if res.Failed {
		return 1, nil
	}
	return 0, nil
}
