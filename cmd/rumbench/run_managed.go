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
	keepData   bool
}

func addManagedFlags(fl *pflag.FlagSet, m *managedFlags) {
	fl.StringSliceVar(&m.engines, "managed", nil, "start a private server for each server engine (postgres: initdb + postgres; innodb, myrocks: mariadb-install-db + mariadbd) on a free 127.0.0.1 port in its data dir, and remove it at the end; --managed alone for every selected server engine, --managed=postgres,innodb for some")
	fl.Lookup("managed").NoOptDefVal = managed.All
	fl.StringArrayVar(&m.serverOpts, "server-opt", nil, "managed server setting key=value, repeatable (shared_buffers=1GB, innodb_buffer_pool_size=1G, innodb_page_size=8k, rocksdb_block_cache_size=512M, ...): each goes to the managed servers that have it; engine.key=value for one engine; effective values are recorded in run.json")
	fl.BoolVar(&m.keepData, "keep-data", false, "keep the managed servers' data dirs (needs --data-dir); by default they are removed at the end")
}

// runArgs rejects positional arguments, saying how to give --managed its
// engines when one follows a bare --managed.
func runArgs(cmd *cobra.Command, f *commonFlags, args []string) error {
	if len(args) > 0 && cmd.Flags().Changed("managed") && contains(f.managed.engines, managed.All) {
		return &runner.BadInputError{Err: fmt.Errorf("unexpected argument %q: give --managed its engines with '=' (--managed=%s), or --managed alone for every server engine", args[0], args[0])}
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
