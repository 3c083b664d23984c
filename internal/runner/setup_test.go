package runner_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rumbench/internal/measure"
	"rumbench/internal/model"
	"rumbench/internal/results"
	"rumbench/internal/runner"
	"rumbench/internal/workload"
)

// setupWorkload is a test double: one time-bounded step with a slow setup
// (as connecting many clients to a busy server is) and a run that works
// until the clock's deadline.
type setupWorkload struct {
	setupErr error
	ran      *time.Duration // how long Run worked
}

func (setupWorkload) Name() string                            { return "setup" }
func (setupWorkload) Ops() measure.Ops                        { return idleOps }
func (setupWorkload) Tables() []string                        { return nil }
func (setupWorkload) Prepare(context.Context, model.DB) error { return nil }
func (w setupWorkload) Steps() []workload.Step {
	return []workload.Step{{Name: "cell", MainOp: "tick", Seconds: 0.3,
		Setup: func(ctx context.Context, env *workload.Env) error {
			time.Sleep(400 * time.Millisecond)
			return w.setupErr
		},
		Run: func(ctx context.Context, env *workload.Env) error {
			start := time.Now()
			rec := env.Clock.Recorder()
			until := env.Clock.Deadline(300 * time.Millisecond)
			for !until.Passed(time.Now()) {
				rec.Record(0, 1, time.Microsecond, false)
				time.Sleep(time.Millisecond)
			}
			*w.ran = time.Since(start)
			return nil
		}}}
}

// TestStepSetupIsNotMeasured: a step's setup runs before its clock starts,
// so a slow setup neither shortens the step's window nor shows as stalled
// time, and a failed setup fails the step without running it.
func TestStepSetupIsNotMeasured(t *testing.T) {
	var ran time.Duration
	out := filepath.Join(t.TempDir(), "out")
	_, err := runner.Run(context.Background(), runner.Options{
		Variants: model.BareVariants("null"), Out: out, DataDir: t.TempDir(), Interval: 100 * time.Millisecond,
		NewWorkload: func() (workload.Workload, error) { return setupWorkload{ran: &ran}, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	if ran < 250*time.Millisecond {
		t.Fatalf("the step ran %v after its 400 ms setup, want its whole 300 ms window", ran)
	}
	b, err := results.Read(filepath.Join(out, "null"))
	if err != nil {
		t.Fatal(err)
	}
	if s := b.Steps["cell"]; s == nil || !s.Complete || s.Seconds > 0.45 {
		t.Fatalf("step = %+v, want complete and about 0.3 s long (the setup not in it)", s)
	}

	ran = 0
	out = filepath.Join(t.TempDir(), "out")
	_, err = runner.Run(context.Background(), runner.Options{
		Variants: model.BareVariants("null"), Out: out, DataDir: t.TempDir(), Interval: 100 * time.Millisecond,
		NewWorkload: func() (workload.Workload, error) {
			return setupWorkload{ran: &ran, setupErr: errors.New("connect client 3: refused")}, nil
		},
	})
	if err == nil || !strings.Contains(err.Error(), "connect client 3") {
		t.Fatalf("run with a failing setup: %v, want its error", err)
	}
	if ran != 0 {
		t.Fatal("the step ran after its setup failed")
	}
}
