// Package crashcli carries out `rumbench crashtest` over the crash tests
// that package plan makes of its flags: each engine's test in a data dir of
// its own, a line per engine or the results as JSON, and the verdict. It is
// apart from package crashtest because plan, which it starts from, imports
// crashtest.
package crashcli

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"rumbench/internal/crashtest"
	"rumbench/internal/plan"
	"rumbench/internal/runner"
)

// Plan checks a crashtest request whose engines are --engine's entries
// (LABEL=ENGINE for a variant) and makes each engine's test; the child
// processes of embedded engines run this binary.
func Plan(engines []string, r plan.Crashtest) ([]crashtest.Spec, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find the rumbench binary for the child process: %w", err)
	}
	variants, err := plan.ParseEngines(engines)
	if err != nil {
		return nil, err
	}
	r.Engines, r.Exe = variants, exe
	return plan.PlanCrashtest(&r)
}

// FailedError is the verdict that an engine lost acknowledged rows or has
// inconsistent indexes: exit 1.
type FailedError struct{ Failed, Engines int }

func (e *FailedError) Error() string {
	return fmt.Sprintf("crashtest: %d of %d engines lost acknowledged rows or have inconsistent indexes", e.Failed, e.Engines)
}

// Run runs the tests one after another, each in its data dir (plan.CrashDir
// of dataDir: a temporary one, removed afterwards, when dataDir is ""),
// printing a line per engine, or with asJSON the results at the end.
// Interrupted (ctx done), it returns runner.ErrInterrupted.
func Run(ctx context.Context, specs []crashtest.Spec, dataDir string, asJSON bool, w io.Writer) error {
	var results []*crashtest.Result
	failed := 0
	for _, s := range specs {
		dir, cleanup, err := plan.CrashDir(dataDir, cmp.Or(s.Label, s.Engine), len(specs) > 1)
		if err != nil {
			return err
		}
		s.DataDir = dir
		res, err := crashtest.Run(ctx, s)
		cleanup()
		if err != nil {
			if ctx.Err() != nil {
				return runner.ErrInterrupted
			}
			return fmt.Errorf("crashtest %s: %w", s.Engine, err)
		}
		results = append(results, res)
		if !asJSON {
			fmt.Fprintln(w, res.Line())
		}
		if !res.OK() {
			failed++
		}
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.Encode(results)
	}
	if failed > 0 {
		return &FailedError{Failed: failed, Engines: len(results)}
	}
	return nil
}

// PlanAndRun plans the crash tests of engines (Plan) and runs them (Run)
// until done or interrupted (SIGINT, SIGTERM).
func PlanAndRun(engines []string, r plan.Crashtest, dataDir string, asJSON bool, w io.Writer) error {
	specs, err := Plan(engines, r)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, specs, dataDir, asJSON, w)
}
