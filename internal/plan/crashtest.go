package plan

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"rumbench/internal/crashtest"
	"rumbench/internal/engine"
	"rumbench/internal/managed"
	"rumbench/internal/membudget"
	"rumbench/internal/model"
)

// Crashtest is a request to crash engines mid-insert (`rumbench
// crashtest`), free of flags.
type Crashtest struct {
	Engines        []Engine
	EngineOpts     []string
	ServerOpts     []string
	CacheSize      string
	CacheSizeGiven bool
	KillAfter      time.Duration
	Durable        bool
	Shape          crashtest.Shape
	// Exe is the rumbench binary that runs an embedded engine's child.
	Exe string
	Log io.Writer
}

// PlanCrashtest checks a crashtest request and returns each engine's spec:
// its durability settings under the given ones, the run's cache budget,
// and for a server engine its managed server's settings. Errors are the
// user's input.
func PlanCrashtest(r *Crashtest) ([]crashtest.Spec, error) {
	if r.KillAfter <= 0 {
		return nil, bad(fmt.Errorf("--kill-after must be positive, got %s", r.KillAfter))
	}
	if r.Shape.Clients < 1 || r.Shape.Clients > 64 {
		return nil, bad(fmt.Errorf("--clients must be between 1 and 64, got %d", r.Shape.Clients))
	}
	if r.Shape.Indexes < 0 || r.Shape.Indexes > 3 {
		return nil, bad(fmt.Errorf("--indexes must be between 0 and 3, got %d", r.Shape.Indexes))
	}
	if r.Shape.RowsPerCommit < 1 || r.Shape.RowsPerCommit > 100000 {
		return nil, bad(fmt.Errorf("--rows-per-commit must be between 1 and 100000, got %d", r.Shape.RowsPerCommit))
	}
	opts, err := ParseEngineOpts(r.EngineOpts)
	if err != nil {
		return nil, bad(err)
	}
	budget, err := membudget.Choose(membudget.Choice{Flag: r.CacheSize, Given: r.CacheSizeGiven})
	if err != nil {
		return nil, bad(err)
	}
	if err := checkDistinct(r.Engines, opts, r.ServerOpts, nil); err != nil {
		return nil, err
	}
	budget.ApplyEngineOpts(uniqueNames(r.Engines), opts)
	var specs []crashtest.Spec
	for _, v := range resolveVariants(r.Engines, opts, r.ServerOpts, labels(r.Engines)) {
		name := v.Engine
		d, err := engine.Lookup(name)
		if err != nil {
			return nil, bad(err)
		}
		if err := d.Available(); err != nil {
			return nil, bad(fmt.Errorf("engine %s is not available here: %v", name, err))
		}
		base, ok := crashtest.Options(d, r.Durable)
		if !ok {
			return nil, bad(fmt.Errorf("engine %s has no crash test (it keeps no data, or has no managed server to kill): choose from %s", name, strings.Join(crashtest.Engines(engine.All()), ", ")))
		}
		eo := map[string]string{}
		for k, v := range base {
			eo[k] = v
		}
		for k, val := range v.Options {
			eo[k] = val
		}
		cfg := model.Config{Options: eo, DSN: "", Database: "rumbench"}
		if _, err := engine.CheckConfig(d, cfg); err != nil {
			return nil, bad(err)
		}
		var srvSettings []managed.Setting
		if d.Kind() == model.Server {
			if err := managed.Check(name); err != nil {
				return nil, bad(fmt.Errorf("crashtest of %s needs a managed server (it kills the server): %v", name, err))
			}
			routed, err := managed.Route([]string{name}, v.Server)
			if err != nil {
				return nil, bad(err)
			}
			BudgetServers(budget, []string{name}, routed)
			srvSettings = routed[name]
		}
		label := ""
		if !v.Bare() {
			label = v.Label
		}
		specs = append(specs, crashtest.Spec{Engine: name, Label: label, Options: eo, Durable: r.Durable, Shape: r.Shape,
			KillAfter: r.KillAfter, Exe: r.Exe, ServerSettings: srvSettings, Log: r.Log})
	}
	if len(specs) == 0 {
		return nil, bad(errors.New("no engine given: use --engine"))
	}
	return specs, nil
}

// CrashDir returns a variant's crash test data dir (name is its label): a
// temporary one (removed by cleanup) or under dataDir (kept), which must be
// empty.
func CrashDir(dataDir, name string, several bool) (string, func(), error) {
	if dataDir == "" {
		d, err := os.MkdirTemp("", "rumbench-crashtest-"+name+"-")
		if err != nil {
			return "", nil, fmt.Errorf("create a temporary data dir: %w", err)
		}
		return d, func() { os.RemoveAll(d) }, nil
	}
	dir := dataDir
	if several {
		dir = filepath.Join(dataDir, name)
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return "", nil, bad(fmt.Errorf("--data-dir %s is not empty: the crash test needs an empty or new directory (nothing was changed)", dir))
	}
	return dir, func() {}, nil
}
