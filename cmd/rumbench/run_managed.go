package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"rumbench/internal/managed"
	"rumbench/internal/runner"
	"rumbench/internal/workload"
)

// managedFlags are the flags of private servers (--managed).
type managedFlags struct {
	engines    []string
	serverOpts []string
	installs   []string
	keepData   bool
}

// addManagedFlags adds --managed, --server-opt and --install, and for run
// (not sweep) --keep-data.
func addManagedFlags(fl *pflag.FlagSet, m *managedFlags, sweep bool) {
	help := "start a private server for each server engine (postgres: initdb + postgres; innodb, myrocks: mariadb-install-db + mariadbd) on a free 127.0.0.1 port in its data dir, and remove it at the end; --managed alone for every selected server engine, --managed=postgres,innodb for some"
	if sweep {
		help = "start a private server for each variant of a server engine (postgres: initdb + postgres; innodb, myrocks: mariadb-install-db + mariadbd) on a free 127.0.0.1 port in a directory of its own, used by all the variant's cells in turn (each in its own database), and remove it at the end; --managed alone for every selected server engine, --managed=postgres,innodb for some"
	}
	fl.StringSliceVar(&m.engines, "managed", nil, help)
	fl.Lookup("managed").NoOptDefVal = managed.All
	fl.StringArrayVar(&m.serverOpts, "server-opt", nil, "managed server setting key=value, repeatable (shared_buffers=1GB, innodb_buffer_pool_size=1G, innodb_page_size=8k, rocksdb_block_cache_size=512M, ...): each goes to the managed servers that have it; engine.key=value for one engine; effective values are recorded in run.json")
	fl.StringArrayVar(&m.installs, "install", nil, "installation a managed server runs, SCOPE=DIR, repeatable: SCOPE a variant's label or an engine (every variant of it), DIR a PostgreSQL bin directory or a MariaDB base directory; two variants from two installations run two versions or builds side by side (default: the system's)")
	if sweep {
		return
	}
	fl.BoolVar(&m.keepData, "keep-data", false, "keep the managed servers' data dirs (needs --data-dir); by default they are removed at the end")
}

// runArgs rejects positional arguments, saying how to give --managed its
// engines when one follows a bare --managed.
func runArgs(cmd *cobra.Command, f *commonFlags, args []string) error {
	if err := managedArgs(cmd, &f.managed, args); err != nil {
		return err
	}
	if len(args) > 0 && cmd.HasAvailableSubCommands() {
		// `run NAME`: the subcommands are the workloads.
		return &runner.BadInputError{Err: fmt.Errorf("unknown workload %q: choose one of %s (`rumbench run NAME`; see `rumbench workloads`)%s", args[0], strings.Join(workload.Names(), ", "), suggest(cmd, args[0]))}
	}
	return argsNone(cmd, args)
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// managedArgs refuses a positional argument after a bare --managed, saying
// how to give --managed its engines.
func managedArgs(cmd *cobra.Command, m *managedFlags, args []string) error {
	if len(args) > 0 && cmd.Flags().Changed("managed") && contains(m.engines, managed.All) {
		return &runner.BadInputError{Err: fmt.Errorf("unexpected argument %q: give --managed its engines with '=' (--managed=%s), or --managed alone for every server engine", args[0], args[0])}
	}
	return nil
}
