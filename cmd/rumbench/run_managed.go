package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"rumbench/internal/engine"
	"rumbench/internal/launch"
	"rumbench/internal/managed"
	"rumbench/internal/membudget"
	"rumbench/internal/model"
	"rumbench/internal/runner"
	"rumbench/internal/workload"
)

// managedFlags are the flags of private servers (--managed).
type managedFlags struct {
	engines    []string
	serverOpts []string
	keepData   bool
}

// managedAll is --managed without a value: every selected server engine.
const managedAll = "all"

func addManagedFlags(fl *pflag.FlagSet, m *managedFlags) {
	fl.StringSliceVar(&m.engines, "managed", nil, "start a private server for each server engine (postgres: initdb + postgres; innodb, myrocks: mariadb-install-db + mariadbd) on a free 127.0.0.1 port in its data dir, and remove it at the end; --managed alone for every selected server engine, --managed=postgres,innodb for some")
	fl.Lookup("managed").NoOptDefVal = managedAll
	fl.StringArrayVar(&m.serverOpts, "server-opt", nil, "managed server setting key=value, repeatable (shared_buffers=1GB, innodb_buffer_pool_size=1G, innodb_page_size=8k, rocksdb_block_cache_size=512M, ...): each goes to the managed servers that have it; engine.key=value for one engine; effective values are recorded in run.json")
	fl.BoolVar(&m.keepData, "keep-data", false, "keep the managed servers' data dirs (needs --data-dir); by default they are removed at the end")
}

// runArgs rejects positional arguments, saying how to give --managed its
// engines when one follows a bare --managed.
func runArgs(cmd *cobra.Command, f *commonFlags, args []string) error {
	if len(args) > 0 && cmd.Flags().Changed("managed") && contains(f.managed.engines, managedAll) {
		return &runner.BadInputError{Err: fmt.Errorf("unexpected argument %q: give --managed its engines with '=' (--managed=%s), or --managed alone for every server engine", args[0], args[0])}
	}
	if len(args) > 0 && cmd.HasAvailableSubCommands() {
		// `run NAME`: the subcommands are the workloads.
		return &runner.BadInputError{Err: fmt.Errorf("unknown workload %q: choose one of %s (`rumbench run NAME`; see `rumbench workloads`)%s", args[0], strings.Join(workload.Names(), ", "), suggest(cmd, args[0]))}
	}
	return argsNone(cmd, args)
}

// managedRun checks the managed flags against the run and returns the
// runner hook that starts the servers (nil without --managed) and what
// run.json records about them.
func managedRun(cmd *cobra.Command, f *commonFlags, ms *launch.Memory, log io.Writer) (runner.ServerStarter, map[string]any, error) {
	m := &f.managed
	fl := cmd.Flags()
	if !fl.Changed("managed") {
		switch {
		case fl.Changed("server-opt"):
			return nil, nil, errors.New("--server-opt configures a managed server: add --managed (or --managed=ENGINE)")
		case m.keepData:
			return nil, nil, errors.New("--keep-data keeps a managed server's data: add --managed and --data-dir")
		}
		return nil, nil, nil
	}
	var servers []string // selected engines that run on a server
	for _, e := range f.engines {
		if d, err := engine.Lookup(e); err == nil && d.Kind() == model.Server {
			servers = append(servers, e)
		}
	}
	var list []string
	for _, e := range m.engines {
		if e == managedAll || e == "true" { // "true": {"managed": true} in --config
			list = append(list, servers...)
			continue
		}
		if !managed.IsManageable(e) {
			return nil, nil, fmt.Errorf("--managed %s: only %s run on a managed server", e, strings.Join(managed.Engines, ", "))
		}
		if !contains(f.engines, e) {
			return nil, nil, fmt.Errorf("--managed %s: %s is not in --engine: add it there", e, e)
		}
		list = append(list, e)
	}
	list = uniq(list)
	if len(list) == 0 {
		return nil, nil, fmt.Errorf("--managed: no server engine in --engine %s (postgres, innodb, myrocks run on servers)", strings.Join(f.engines, ","))
	}
	if f.dsn != "" && len(list) == len(servers) {
		return nil, nil, errors.New("--dsn addresses a server, --managed starts one: give one of them")
	}
	if m.keepData && f.dataDir == "" {
		return nil, nil, errors.New("--keep-data needs --data-dir (a temporary data dir is always removed)")
	}
	for _, e := range list {
		if err := managed.Check(e); err != nil {
			return nil, nil, err
		}
	}
	settings, err := managed.Route(list, m.serverOpts)
	if err != nil {
		return nil, nil, err
	}
	if b := f.mem.budget; b != nil {
		budgetServers(b, list, settings)
	}
	cfg := map[string]any{"engines": list, "server_opts": m.serverOpts, "keep_data": m.keepData}
	starter := func(ctx context.Context, name, dataDir string, before func(*exec.Cmd) error) (*runner.Server, error) {
		if !contains(list, name) {
			return nil, nil
		}
		srv, err := managed.Start(ctx, managed.Spec{
			Engine:      name,
			Dir:         dataDir,
			Settings:    settings[name],
			Keep:        m.keepData,
			Log:         log,
			BeforeStart: before,
		})
		if err != nil {
			var rej *managed.RejectedError
			if errors.As(err, &rej) || errors.Is(err, managed.ErrBadDir) {
				return nil, &runner.BadInputError{Err: err}
			}
			return nil, err
		}
		st := srv.Settings()
		return &runner.Server{DSN: srv.DSN(), Settings: st, Stop: srv.Stop}, nil
	}
	return launch.ManagedMemory(ms, starter), cfg, nil
}

// budgetServers gives each managed server the run's cache (its own
// setting, membudget.ServerSetting), unless a --server-opt set it, which
// is recorded as the engine's override.
func budgetServers(b *membudget.Budget, list []string, settings map[string][]managed.Setting) {
	for _, e := range list {
		key := membudget.ServerSetting(e)
		if key == "" {
			continue
		}
		given := false
		for _, s := range settings[e] {
			if s.Key == key {
				given = true
				b.Overrides = setOverride(b.Overrides, e, "--server-opt "+key+"="+s.Value)
			}
		}
		if !given {
			settings[e] = append(settings[e], managed.Setting{Key: key, Value: membudget.ServerValue(e, b.Bytes)})
		}
	}
}

func setOverride(m map[string]string, k, v string) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	m[k] = v
	return m
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func uniq(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// startKeptServer starts the managed server a run kept in dataDir, for
// verify --managed; it keeps the data when stopped.
func startKeptServer(ctx context.Context, d model.Driver, dataDir, dsn string) (*managed.Server, error) {
	bad := func(err error) error { return &runner.BadInputError{Err: err} }
	switch {
	case !managed.IsManageable(d.Name()):
		return nil, bad(fmt.Errorf("--managed: engine %s does not run on a managed server (only %s)", d.Name(), strings.Join(managed.Engines, ", ")))
	case dsn != "":
		return nil, bad(errors.New("--dsn addresses a server, --managed starts one: give one of them"))
	case dataDir == "":
		return nil, bad(errors.New("--managed needs --data-dir: the directory of a run with --managed --keep-data (<data-dir>/<engine> when it ran several engines)"))
	}
	if _, err := os.Stat(filepath.Join(dataDir, "server", "data")); err != nil {
		return nil, bad(fmt.Errorf("--data-dir %s holds no kept managed server (no server/data): give the directory of a run with --managed --keep-data (<data-dir>/<engine> when it ran several engines)", dataDir))
	}
	srv, err := managed.Start(ctx, managed.Spec{Engine: d.Name(), Dir: dataDir, Keep: true})
	var rej *managed.RejectedError
	if errors.As(err, &rej) || errors.Is(err, managed.ErrBadDir) {
		return nil, bad(err)
	}
	return srv, err
}
