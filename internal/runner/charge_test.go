package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"rumbench/internal/engine"
	_ "rumbench/internal/engine/null"
	"rumbench/internal/measure"
	"rumbench/internal/model"
	"rumbench/internal/results"
	"rumbench/internal/runner"
	"rumbench/internal/sysmetrics"
	"rumbench/internal/workload"
)

// sizeWritingDriver is a test double: the null engine whose Size report
// writes and syncs 16 MiB, so work done by the engine's end-of-step
// reports is visible in the process's write_bytes.
type sizeWritingDriver struct{ model.Driver }

func (d sizeWritingDriver) Name() string { return "test-sizewriter" }

func (d sizeWritingDriver) Open(ctx context.Context, cfg model.Config) (model.DB, error) {
	db, err := d.Driver.Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &sizeWritingDB{DB: db, dir: cfg.DataDir}, nil
}

type sizeWritingDB struct {
	model.DB
	dir string
}

func (db *sizeWritingDB) Size(ctx context.Context) (int64, error) {
	f, err := os.CreateTemp(db.dir, "size-report-*")
	if err != nil {
		return 0, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	buf := make([]byte, 1<<20)
	for range 16 {
		if _, err := f.Write(buf); err != nil {
			return 0, err
		}
	}
	return 0, f.Sync()
}

// idleWorkload has one count-bounded step that records a few operations.
type idleWorkload struct{}

var idleOps = measure.Ops{{Name: "tick", Unit: measure.UnitOps, Role: measure.RoleWrite}}

func (idleWorkload) Name() string                            { return "idle" }
func (idleWorkload) Ops() measure.Ops                        { return idleOps }
func (idleWorkload) Tables() []string                        { return nil }
func (idleWorkload) Prepare(context.Context, model.DB) error { return nil }
func (idleWorkload) Steps() []workload.Step {
	return []workload.Step{{Name: "idle", MainOp: "tick", Run: func(ctx context.Context, env *workload.Env) error {
		rec := env.Clock.Recorder()
		for range 10 {
			rec.Record(0, 1, time.Millisecond, false)
		}
		time.Sleep(50 * time.Millisecond)
		return nil
	}}}
}

func init() {
	null, err := engine.Lookup("null")
	if err != nil {
		panic(err)
	}
	engine.Register(sizeWritingDriver{null})
}

// TestEngineReportsAreNotChargedToTheStep: the engine's size and statistics
// are read after the sampler's last reading of the step, so their IO is not
// in the step's figures.
func TestEngineReportsAreNotChargedToTheStep(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	_, err := runner.Run(context.Background(), runner.Options{
		Variants:    model.BareVariants("test-sizewriter"),
		Out:         out,
		DataDir:     t.TempDir(),
		Interval:    time.Second,
		NewWorkload: func() (workload.Workload, error) { return idleWorkload{}, nil },
		Observers:   []runner.ObserverFactory{sysmetrics.Factory(nil)},
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := results.Read(filepath.Join(out, "test-sizewriter"))
	if err != nil {
		t.Fatal(err)
	}
	m := b.Steps["idle"].Metrics
	if m == nil || m.ProcWKB == nil {
		t.Skipf("process write_bytes unavailable here: %+v", m)
	}
	if *m.ProcWKB >= 8*1024 {
		t.Errorf("the step was charged %.0f KB written: the 16 MiB the engine's size report wrote counted in the step", *m.ProcWKB)
	}
}
