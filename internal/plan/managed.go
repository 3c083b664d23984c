package plan

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"sort"
	"strings"
	"sync"

	"rumbench/internal/engine"
	"rumbench/internal/engineopt"
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
func PlanServers(req managed.Request, variants []model.Variant, dataDir, dsn string, b *membudget.Budget, ms *launch.Memory, log io.Writer) (*Servers, error) {
	mp, err := managedPlan(req, asEngines(variants), dataDir, dsn)
	if err != nil {
		return nil, err
	}
	installs, err := variantInstalls(mp, req.Installs, variants)
	if err != nil {
		return nil, bad(err)
	}
	settings, err := variantServerSettings(mp, req.ServerOpts, variants, installs)
	if err != nil {
		return nil, bad(err)
	}
	if mp == nil {
		return nil, nil
	}
	engineOf := map[string]string{}
	var managedLabels []string
	for _, v := range variants {
		engineOf[v.Label] = v.Engine
		if mp.Manages(v.Engine) {
			managedLabels = append(managedLabels, v.Label)
		}
	}
	if b != nil {
		// Plan.Settings stay the engines' (what run.json's managed
		// config and bare variants show); each variant its own.
		BudgetServers(b, mp.Engines, mp.Settings)
		budgetVariants(b, managedLabels, engineOf, settings)
	}
	// name is a variant's label (the runner's), its engine's name for a
	// bare one.
	starter := func(ctx context.Context, name, dataDir string, before func(*exec.Cmd) error) (*runner.Server, error) {
		eng := engineOf[name]
		if !mp.Manages(eng) {
			return nil, nil
		}
		srv, err := managed.Start(ctx, managed.Spec{
			Engine:      eng,
			Install:     installs[name],
			Dir:         dataDir,
			Settings:    settings[name],
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
		Start:  launch.ManagedMemory(ms, func(label string) string { return engineOf[label] }, starter),
	}, nil
}

// managedPlan checks the --managed request against the variants' engines
// and routes the --server-opt settings scoped to no label (managed.NewPlan);
// nil without --managed.
func managedPlan(req managed.Request, variants []Engine, dataDir, dsn string) (*managed.Plan, error) {
	engines := uniqueNames(variants)
	req.Selected, req.DSN, req.DataDir = engines, dsn, dataDir
	req.Servers = nil
	for _, e := range engines {
		if d, err := engine.Lookup(e); err == nil && d.Kind() == model.Server {
			req.Servers = append(req.Servers, e)
		}
	}
	req.ServerOpts = withoutLabelScopes(req.ServerOpts, variants)
	mp, err := managed.NewPlan(req)
	if err != nil {
		return nil, bad(err)
	}
	return mp, nil
}

// withoutLabelScopes are the --server-opt settings minus those scoped to
// a variant's label (not an engine's name), which managed.NewPlan does not
// know.
func withoutLabelScopes(kvs []string, variants []Engine) []string {
	isLabel := map[string]bool{}
	for _, v := range variants {
		isLabel[v.label()] = v.label() != v.Name
	}
	var out []string
	for _, kv := range kvs {
		if sc, _, scoped := engineopt.Split(kv); scoped && isLabel[sc] {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// variantServerSettings routes each managed variant's server settings
// (model.Variant.Server, scoped by plan: LABEL.key over engine.key over
// key) to its server, by label. A label-scoped setting of kvs (the
// --server-opt settings as given) of a variant whose engine runs on no
// managed server is refused.
func variantServerSettings(mp *managed.Plan, kvs []string, variants []model.Variant, installs map[string]string) (map[string][]managed.Setting, error) {
	given := engineopt.Scoped{}
	for _, kv := range kvs {
		k, v, _ := strings.Cut(kv, "=")
		given[k] = v
	}
	for _, v := range variants {
		if v.Bare() || mp.Manages(v.Engine) {
			continue
		}
		for k := range given {
			if sc, _, scoped := engineopt.Split(k); scoped && sc == v.Label {
				return nil, fmt.Errorf("--server-opt %s: variant %s (%s) does not run on a managed server: add --managed=%s, or drop the setting", k, v.Label, v.Engine, v.Engine)
			}
		}
	}
	if mp == nil {
		return nil, nil
	}
	out := map[string][]managed.Setting{}
	for _, v := range variants {
		if !mp.Manages(v.Engine) {
			continue
		}
		seen := map[string]string{}
		for _, kv := range v.Server {
			k, val, _ := strings.Cut(kv, "=")
			seen[k] = val
		}
		// Plain keys first: Route lets a later value win, and a scoped
		// one wins over the plain.
		keys := make([]string, 0, len(seen))
		for k := range seen {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			_, _, si := engineopt.Split(keys[i])
			_, _, sj := engineopt.Split(keys[j])
			if si != sj {
				return !si
			}
			return keys[i] < keys[j]
		})
		var list []string
		for _, k := range keys {
			list = append(list, k+"="+seen[k])
		}
		routed, err := managed.RouteInstalls(mp.Engines, map[string]string{v.Engine: installs[v.Label]}, list)
		if err != nil {
			return nil, err
		}
		out[v.Label] = routed[v.Engine]
	}
	return out, nil
}

// variantInstalls reads --install SCOPE=DIR: each managed variant's
// installation, by label (LABEL=DIR over ENGINE=DIR; none: the system's),
// checked to hold the server's binaries. A scope that is no label or
// engine of the run, or whose variants run on no managed server, is
// refused.
func variantInstalls(mp *managed.Plan, given []string, variants []model.Variant) (map[string]string, error) {
	byScope := map[string]string{}
	for _, kv := range given {
		scope, dir, ok := strings.Cut(kv, "=")
		if !ok || scope == "" || dir == "" {
			return nil, fmt.Errorf("--install %q is not SCOPE=DIR (a variant's label or an engine, and a server installation: --install pg16=/usr/lib/postgresql/16/bin)", kv)
		}
		if _, dup := byScope[scope]; dup {
			return nil, fmt.Errorf("--install %s is given twice: give it once", scope)
		}
		known, isManaged, eng := false, false, ""
		for _, v := range variants {
			if v.Label == scope || v.Engine == scope {
				known, eng = true, v.Engine
				isManaged = isManaged || mp.Manages(v.Engine)
			}
		}
		if !known {
			return nil, fmt.Errorf("--install %s: %q is neither a label nor an engine in --engine: scope it to one of %s", kv, scope, strings.Join(variantLabels(variants), ", "))
		}
		if !isManaged {
			return nil, fmt.Errorf("--install %s: %s (%s) does not run on a managed server: an installation is what a managed server runs (--managed: postgres, innodb, myrocks)", kv, scope, eng)
		}
		byScope[scope] = dir
	}
	out := map[string]string{}
	for _, v := range variants {
		dir, ok := byScope[v.Label]
		if !ok {
			dir = byScope[v.Engine]
		}
		if dir == "" || !mp.Manages(v.Engine) {
			continue
		}
		if err := managed.CheckInstall(v.Engine, dir); err != nil {
			return nil, fmt.Errorf("--install %s=%s: %w", v.Label, dir, err)
		}
		out[v.Label] = dir
	}
	return out, nil
}

// budgetVariants is BudgetServers over variants: each managed variant's
// server gets the run's cache unless its settings set one.
func budgetVariants(b *membudget.Budget, labels []string, engineOf map[string]string, settings map[string][]managed.Setting) {
	for _, l := range labels {
		e := engineOf[l]
		one := map[string][]managed.Setting{e: settings[l]}
		BudgetServers(b, []string{e}, one)
		settings[l] = one[e]
	}
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
func StartKeptServer(ctx context.Context, engineName, dataDir, dsn, install string) (*managed.Server, error) {
	if err := managed.CheckKept(engineName, dataDir, dsn); err != nil {
		return nil, bad(err)
	}
	if install != "" {
		if err := managed.CheckInstall(engineName, install); err != nil {
			return nil, bad(fmt.Errorf("--install %s: %w", install, err))
		}
	}
	srv, err := managed.Start(ctx, managed.Spec{Engine: engineName, Dir: dataDir, Install: install, Keep: true})
	if managed.IsBadInput(err) {
		return nil, bad(err)
	}
	return srv, err
}

// ServerPool keeps one managed server per variant for a sweep: the
// variant's first run (or the read-back before the sweep) starts it, in a
// directory of its own outside the runs' data dirs, and every later run of
// the variant gets the same server; Close stops them all. Each run works in
// a database of its own (its cell's), so the runs share the server's
// process, cache and logs, not their tables.
type ServerPool struct {
	start runner.ServerStarter
	mu    sync.Mutex
	// servers by label, in the order they started.
	servers map[string]*runner.Server
	order   []string
}

// Pool is a pool of s's servers; nil when s is nil (no managed server).
func (s *Servers) Pool() *ServerPool {
	if s == nil {
		return nil
	}
	return &ServerPool{start: s.Start, servers: map[string]*runner.Server{}}
}

// Starter is the runner's hook that hands out the pool's servers (nil for
// a nil pool). A server it hands out is Shared, and its Stop does
// nothing: Close stops it.
func (p *ServerPool) Starter() runner.ServerStarter {
	if p == nil {
		return nil
	}
	return func(ctx context.Context, label, _ string) (*runner.Server, error) {
		p.mu.Lock()
		defer p.mu.Unlock()
		srv, ok := p.servers[label]
		if !ok {
			// "": a directory of the server's own, removed by its Stop.
			started, err := p.start(ctx, label, "")
			if err != nil || started == nil {
				return started, err
			}
			srv = started
			p.servers[label] = srv
			p.order = append(p.order, label)
		}
		lent := *srv
		lent.Shared = true
		lent.Stop = func() error { return nil }
		return &lent, nil
	}
}

// Close stops the pool's servers, the last started first, and returns the
// first error.
func (p *ServerPool) Close() error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var first error
	for i := len(p.order) - 1; i >= 0; i-- {
		label := p.order[i]
		if err := p.servers[label].Stop(); err != nil && first == nil {
			first = fmt.Errorf("stop the managed server of %s: %w", label, err)
		}
		delete(p.servers, label)
	}
	p.order = nil
	return first
}
