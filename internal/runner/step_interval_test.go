package runner_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"rumbench/internal/model"
	"rumbench/internal/results"
	"rumbench/internal/runner"
	"rumbench/internal/workload"
)

// intervalWorkload is a test double: two time-bounded steps that tick
// until their deadline, the second planned with an interval of its own.
type intervalWorkload struct{ setupWorkload }

func (intervalWorkload) Steps() []workload.Step {
	run := func(ctx context.Context, env *workload.Env) error {
		rec := env.Clock.Recorder()
		until := env.Clock.Deadline(300 * time.Millisecond)
		for !until.Passed(time.Now()) {
			rec.Record(0, 1, time.Microsecond, false)
			time.Sleep(time.Millisecond)
		}
		return nil
	}
	return []workload.Step{
		{Name: "run-interval", MainOp: "tick", Seconds: 0.3, Run: run},
		{Name: "own-interval", MainOp: "tick", Seconds: 0.3, Run: run, Interval: 25 * time.Millisecond},
	}
}

// TestStepOwnInterval: a step that plans an interval of its own is
// measured at it (its summary's interval_s, which the stall rule and the
// charts read), the others at the run's.
func TestStepOwnInterval(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	_, err := runner.Run(context.Background(), runner.Options{
		Variants: model.BareVariants("null"), Out: out, DataDir: t.TempDir(), Interval: 100 * time.Millisecond,
		NewWorkload: func() (workload.Workload, error) { return intervalWorkload{}, nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := results.Read(filepath.Join(out, "null"))
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, iv := range b.Intervals {
		n[iv.Step]++
	}
	if s := b.Steps["run-interval"]; s == nil || s.Interval != 0.1 {
		t.Errorf("run-interval: %+v, want interval_s 0.1 (the run's)", s)
	}
	if s := b.Steps["own-interval"]; s == nil || s.Interval != 0.025 {
		t.Errorf("own-interval: %+v, want interval_s 0.025 (its own)", s)
	}
	if n["own-interval"] <= n["run-interval"] {
		t.Errorf("intervals logged: %v, want more at 25 ms than at 100 ms over the same 0.3 s", n)
	}
}
