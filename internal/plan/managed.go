package plan

import (
	"context"
	"io"
	"os/exec"

	"rumbench/internal/engine"
	"rumbench/internal/launch"
	"rumbench/internal/managed"
	"rumbench/internal/membudget"
	"rumbench/internal/model"
	"rumbench/internal/results"
	"rumbench/internal/runner"
)

// Servers are the private servers of a run (--managed): what run.json
// records and the runner's hook that starts them.
type Servers struct {
	Plan   *managed.Plan
	Config *results.ManagedConfig
	Start  runner.ServerStarter
}

// PlanServers checks the --managed request against the run's engines and
// gives each managed server the budget's cache (unless a --server-opt set
// it); each server runs in its own memory cgroup when ms has one. Without
// --managed it returns nil servers. Errors are the user's input.
func PlanServers(req managed.Request, engines []string, dataDir, dsn string, b *membudget.Budget, ms *launch.Memory, log io.Writer) (*Servers, error) {
	req.Selected, req.DSN, req.DataDir = engines, dsn, dataDir
	req.Servers = nil
	for _, e := range engines {
		if d, err := engine.Lookup(e); err == nil && d.Kind() == model.Server {
			req.Servers = append(req.Servers, e)
		}
	}
	mp, err := managed.NewPlan(req)
	if err != nil {
		return nil, bad(err)
	}
	if mp == nil {
		return nil, nil
	}
	if b != nil {
		BudgetServers(b, mp.Engines, mp.Settings)
	}
	starter := func(ctx context.Context, name, dataDir string, before func(*exec.Cmd) error) (*runner.Server, error) {
		if !mp.Manages(name) {
			return nil, nil
		}
		srv, err := managed.Start(ctx, managed.Spec{
			Engine:      name,
			Dir:         dataDir,
			Settings:    mp.Settings[name],
			Keep:        req.KeepData,
			Log:         log,
			BeforeStart: before,
		})
		if err != nil {
			if managed.IsBadInput(err) {
				return nil, bad(err)
			}
			return nil, err
		}
		return &runner.Server{DSN: srv.DSN(), Settings: srv.Settings(), Stop: srv.Stop}, nil
	}
	return &Servers{
		Plan:   mp,
		Config: &results.ManagedConfig{Engines: mp.Engines, ServerOpts: req.ServerOpts, KeepData: req.KeepData},
		Start:  launch.ManagedMemory(ms, starter),
	}, nil
}

// Manages reports whether engine runs on a server of s (none when s is
// nil).
func (s *Servers) Manages(engine string) bool { return s != nil && s.Plan.Manages(engine) }

// Recorded is what run.json records about the servers (nil without).
func (s *Servers) Recorded() *results.ManagedConfig {
	if s == nil {
		return nil
	}
	return s.Config
}

// Starter is the runner's hook that starts the servers (nil without).
func (s *Servers) Starter() runner.ServerStarter {
	if s == nil {
		return nil
	}
	return s.Start
}

// StartKeptServer starts the managed server a run kept in dataDir, for
// verify --managed; it keeps the data when stopped.
func StartKeptServer(ctx context.Context, engineName, dataDir, dsn string) (*managed.Server, error) {
	if err := managed.CheckKept(engineName, dataDir, dsn); err != nil {
		return nil, bad(err)
	}
	srv, err := managed.Start(ctx, managed.Spec{Engine: engineName, Dir: dataDir, Keep: true})
	if managed.IsBadInput(err) {
		return nil, bad(err)
	}
	return srv, err
}
