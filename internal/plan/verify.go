package plan

import (
	"errors"
	"fmt"
	"strings"

	"rumbench/internal/engine"
	"rumbench/internal/model"
	"rumbench/internal/workload"
)

// Verify is a request to check an engine's data (`rumbench verify`).
type Verify struct {
	Engine     string
	DataDir    string
	Database   string
	Workload   string
	EngineOpts []string
}

// VerifyPlan is a checked verify request.
type VerifyPlan struct {
	Request *Verify
	Driver  model.Driver
	// Check is the workload's own check (nil without --workload).
	Check   workload.VerifyFunc
	Options map[string]string
}

// PlanVerify checks a verify request. Errors are the user's input.
func PlanVerify(r *Verify) (*VerifyPlan, error) {
	if r.Engine == "" {
		return nil, bad(fmt.Errorf("--engine is required (one of %s)", strings.Join(engine.Names(), ", ")))
	}
	if label, name, ok := strings.Cut(r.Engine, "="); ok {
		// A variant's data is its engine's: its label only names the
		// directory the run kept it in.
		return nil, bad(fmt.Errorf("--engine %s: verify takes the engine, not a variant: give --engine %s --data-dir <data-dir>/%s (the labelled run's data dir)", r.Engine, name, label))
	}
	d, err := engine.Lookup(r.Engine)
	if err != nil {
		return nil, bad(err)
	}
	if d.Kind() == model.Embedded && r.DataDir == "" {
		return nil, bad(fmt.Errorf("--data-dir is required for embedded engine %s", r.Engine))
	}
	p := &VerifyPlan{Request: r, Driver: d}
	if r.Workload != "" {
		def, err := workload.Lookup(r.Workload)
		if err != nil {
			return nil, bad(err)
		}
		if def.Verify == nil {
			return nil, bad(fmt.Errorf("workload %s has no checks of its own: drop --workload (the indexes are always checked)", r.Workload))
		}
		p.Check = def.Verify
	}
	if p.Options, err = ParseEngineOpts(r.EngineOpts); err != nil {
		return nil, bad(err)
	}
	return p, nil
}

// OpenError classifies an error opening the data read-only: data that is
// not there, or not rumbench's, is the user's input, not a pass.
func (p *VerifyPlan) OpenError(err error) error {
	if errors.Is(err, engine.ErrForeignData) || errors.Is(err, model.ErrNoData) || errors.Is(err, model.ErrSetup) {
		return bad(err)
	}
	return err
}

// NothingToVerify is the refusal of data that holds no rumbench tables.
func (p *VerifyPlan) NothingToVerify() error {
	where, what := "database "+p.Request.Database, "--database"
	if p.Driver.Kind() == model.Embedded {
		where, what = "--data-dir "+p.Request.DataDir, "--data-dir"
	}
	return bad(fmt.Errorf("%s holds no rumbench tables: nothing to verify; give the %s of a run", where, what))
}
