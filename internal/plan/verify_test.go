package plan

import (
	"errors"
	"strings"
	"testing"

	"rumbench/internal/engine"
	"rumbench/internal/model"
	"rumbench/internal/runner"
)

func TestPlanVerify(t *testing.T) {
	p, err := PlanVerify(&Verify{Engine: "sqlite", DataDir: "/d", Workload: "linkbench", EngineOpts: []string{"cache_size=8MB"}})
	if err != nil || p.Check == nil || p.Options["cache_size"] != "8MB" {
		t.Fatalf("%+v, %v", p, err)
	}
	if err := p.NothingToVerify(); err == nil || err.Error() != "--data-dir /d holds no rumbench tables: nothing to verify; give the --data-dir of a run" {
		t.Errorf("embedded, no tables: %v", err)
	}
	p, err = PlanVerify(&Verify{Engine: "postgres", Database: "rb"})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.NothingToVerify(); err == nil || err.Error() != "database rb holds no rumbench tables: nothing to verify; give the --database of a run" {
		t.Errorf("server, no tables: %v", err)
	}
	var bi *runner.BadInputError
	if err := p.OpenError(model.ErrNoData); !errors.As(err, &bi) {
		t.Errorf("no data: %v, want bad input", err)
	}
	if err := p.OpenError(engine.ErrForeignData); !errors.As(err, &bi) {
		t.Errorf("foreign data: %v, want bad input", err)
	}
	if err := p.OpenError(errors.New("disk on fire")); errors.As(err, &bi) {
		t.Errorf("another error is not the user's input: %v", err)
	}
	for _, c := range []struct {
		r    Verify
		want string
	}{
		{Verify{}, "--engine is required (one of "},
		{Verify{Engine: "nosuch"}, `unknown engine "nosuch"`},
		{Verify{Engine: "pebble"}, "--data-dir is required for embedded engine pebble"},
		{Verify{Engine: "pebble", DataDir: "/d", Workload: "hotrow"}, "workload hotrow has no checks of its own"},
		{Verify{Engine: "pebble", DataDir: "/d", EngineOpts: []string{"x"}}, `--engine-opt "x" is not key=value`},
	} {
		if _, err := PlanVerify(&c.r); err == nil || !errors.As(err, &bi) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.r, err, c.want)
		}
	}
}
