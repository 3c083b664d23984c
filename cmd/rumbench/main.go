// Command rumbench benchmarks database storage engines: what each write, read
// and byte of data costs, and when the engine stalls.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"rumbench/internal/cli/runcli"
	"rumbench/internal/execute"
	"rumbench/internal/runner"
)

// Exit codes.
const (
	exitOK          = 0
	exitFailure     = 1
	exitBadInput    = 2
	exitInterrupted = 130
)

// exitError carries an exit code chosen by a subcommand (e.g. verify's 1).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int { return runWith(args, os.Stdout, os.Stderr) }

// runWith runs the CLI with the given output streams and returns its exit
// code.
func runWith(args []string, stdout, stderr io.Writer) int {
	args, err := runcli.RewriteWorkloadFlag(args)
	if err != nil {
		fmt.Fprintf(stderr, "rumbench: %v\n", err)
		return exitBadInput
	}
	invocation = args
	cmd := newRootCmd()
	cmd.SetArgs(args)
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	// Errors raised before a command's own code runs (unknown command,
	// argument checks) are the user's input.
	started := false
	cmd.PersistentPreRun = func(*cobra.Command, []string) { started = true }
	err = cmd.Execute()
	if err == nil {
		return exitOK
	}
	if !started {
		err = &runner.BadInputError{Err: err}
	}
	var ee *exitError
	var bad *runner.BadInputError
	switch {
	case errors.As(err, &ee):
		if ee.err != nil {
			fmt.Fprintf(stderr, "rumbench: %v\n", ee.err)
		}
		return ee.code
	case errors.Is(err, runner.ErrInterrupted) || errors.Is(err, context.Canceled):
		if execute.InChild(err) {
			return exitInterrupted // the parent says it
		}
		fmt.Fprintln(stderr, "rumbench: interrupted; results gathered so far are saved")
		return exitInterrupted
	case errors.As(err, &bad):
		fmt.Fprintf(stderr, "rumbench: %v\n", err)
		return exitBadInput
	}
	fmt.Fprintf(stderr, "rumbench: %v\n", err)
	return exitFailure
}
