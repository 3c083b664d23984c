// Package render carries out the `rumbench history` subcommands over a
// store and prints what they find: the runs recorded, the series as tables
// with their change points, the regression gate, the A/A calibration, the
// Otava export and the comparison of recorded runs. Figures are printed
// and judged as the figure catalogue says; cmd/rumbench keeps the flags.
// Errors that are the user's input are runner.BadInputError (exit 2).
package historycli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"rumbench/internal/history"
	"rumbench/internal/runner"
)

// Target is where the history is: given (--history), or the default file.
func Target(given string) (string, error) {
	if given != "" {
		return given, nil
	}
	p, err := history.DefaultPath()
	if err != nil {
		return "", &runner.BadInputError{Err: err}
	}
	return p, nil
}

// Open opens the store, creating it when create is set (history add, run
// --history); the reading commands refuse a history that does not exist,
// so that a mistyped --history fails (a CI gate that reads an empty history
// would always pass). Failing to open is the user's input (a path that
// cannot be created, a server that does not answer): exit 2.
func Open(ctx context.Context, given string, create bool) (*history.Store, error) {
	target, err := Target(given)
	if err != nil {
		return nil, err
	}
	open := history.OpenExisting
	if create {
		open = history.Open
	}
	s, err := open(ctx, target)
	if errors.Is(err, history.ErrNoHistory) {
		return nil, &runner.BadInputError{Err: err}
	}
	if err != nil {
		return nil, &runner.BadInputError{Err: fmt.Errorf("%w (check --history)", err)}
	}
	return s, nil
}

// Series reads the series flt selects from the history given; where names
// the store for messages.
func Series(ctx context.Context, given string, flt history.Filter) (ss []*history.Series, where string, err error) {
	s, err := Open(ctx, given, false)
	if err != nil {
		return nil, "", err
	}
	defer s.Close()
	ss, err = s.Series(ctx, flt)
	return ss, s.Where(), err
}

// AddTo records the bundles under dirs in the history given, creating it
// when it does not exist, and says what it did.
func AddTo(ctx context.Context, given string, dirs []string, label string, w io.Writer) error {
	s, err := Open(ctx, given, true)
	if err != nil {
		return err
	}
	defer s.Close()
	return Add(ctx, s, dirs, label, w)
}

// Add records the bundles under dirs and says what it did.
func Add(ctx context.Context, s *history.Store, dirs []string, label string, w io.Writer) error {
	added, err := s.AddDirs(ctx, dirs, label)
	for _, a := range added {
		switch {
		case a.Skipped != "":
			fmt.Fprintf(w, "skipped %s: %s\n", a.Dir, a.Skipped)
		case a.Existed:
			fmt.Fprintf(w, "updated %s (already recorded: run %.12s, %d steps)\n", a.Dir, a.Key, a.Steps)
		default:
			fmt.Fprintf(w, "added   %s (run %.12s, %d steps)\n", a.Dir, a.Key, a.Steps)
		}
	}
	if err != nil {
		if len(added) == 0 && !strings.HasPrefix(err.Error(), "history ") {
			return &runner.BadInputError{Err: err} // the directories named
		}
		return err
	}
	fmt.Fprintf(w, "history %s: %d bundles recorded\n", s.Where(), len(added))
	return nil
}

// CheckRunTarget resolves a run's --history ("default": the default file)
// and opens the store once before the run, so that a history that cannot
// be opened is refused before hours of benchmarking, not after.
func CheckRunTarget(ctx context.Context, target *string) error {
	if *target == "" {
		return nil
	}
	if *target == "default" {
		p, err := history.DefaultPath()
		if err != nil {
			return &runner.BadInputError{Err: err}
		}
		*target = p
	}
	s, err := Open(ctx, *target, true)
	if err != nil {
		return err
	}
	return s.Close()
}

// RecordRun records a finished run's bundles in the history named by
// target (none: nothing to do). An interrupted or failed run is recorded
// too (its incomplete steps stay out of the series); a run that succeeded
// but could not be recorded fails, since a CI job relies on it. It returns
// the error the run ends with.
func RecordRun(target string, dirs []string, runErr error, w io.Writer) error {
	if target == "" || len(dirs) == 0 {
		return runErr
	}
	// Not the run's context: Ctrl-C ended the run, not the recording.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := history.Open(ctx, target)
	if err == nil {
		defer s.Close()
		err = Add(ctx, s, dirs, "", w)
	}
	if err == nil {
		return runErr
	}
	err = fmt.Errorf("the run's results are saved but could not be recorded in the history: %w (record them later with `rumbench history add`)", err)
	if runErr != nil {
		fmt.Fprintf(w, "rumbench: %v\n", err)
		return runErr
	}
	return err
}

// RunRecorder is --history of run and sweep (execute.History): the store
// is resolved and opened before the run (CheckRunTarget) and the run's
// bundles recorded at its end (RecordRun).
type RunRecorder struct{ Target string }

// Check resolves and opens the history before anything runs.
func (h *RunRecorder) Check(ctx context.Context) error { return CheckRunTarget(ctx, &h.Target) }

// Record records the bundles in dirs and returns the run's error.
func (h *RunRecorder) Record(dirs []string, runErr error, w io.Writer) error {
	return RecordRun(h.Target, dirs, runErr, w)
}
