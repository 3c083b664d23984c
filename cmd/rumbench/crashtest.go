package main

import (
	"context"
	"errors"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"rumbench/internal/cli/crashcli"
	"rumbench/internal/crashtest"
	"rumbench/internal/plan"
)

func newCrashtestCmd() *cobra.Command {
	var engines, engineOpts, serverOpts []string
	var dataDir, cacheSize string
	var killAfter time.Duration
	var durable, asJSON bool
	shape := crashtest.DefaultShape
	cmd := &cobra.Command{
		Use:   "crashtest",
		Short: "Kill each engine hard mid-insert and check that every acknowledged insert survived",
		Long: `For each engine: clients insert rows of the insert benchmark's tables (with
their secondary indexes) in PK order with durable commits (sync=true for the
embedded engines, synchronous=full for sqlite; a managed server with its
default fsync on commit for postgres and innodb); after --kill-after the
engine is killed with SIGKILL (an embedded engine runs in a child rumbench
process, which is what is killed; a server engine's managed server's main
process is killed), reopened (the server restarted on its data), and every
insert whose commit had returned to its client must be there, by PK range
per table, with every secondary index consistent with the primary key.

Prints acknowledged / present / lost per engine. With --durable=false the
engines run with commits that are not flushed (sync=false, ...): their loss
is reported, not a failure. Exit code 0 when every engine kept its promise,
1 when one lost acknowledged rows or has inconsistent indexes, 2 on bad input.`,
		Example: "  rumbench crashtest --engine pebble,sqlite,bbolt,rocksdb,wiredtiger\n  rumbench crashtest --engine postgres,innodb --kill-after 5s",
		Args:    argsNone,
		RunE: func(cmd *cobra.Command, _ []string) error {
			err := crashcli.PlanAndRun(engines, plan.Crashtest{
				EngineOpts: engineOpts, ServerOpts: serverOpts,
				CacheSize: cacheSize, CacheSizeGiven: cmd.Flags().Changed("cache-size"),
				KillAfter: killAfter, Durable: durable, Shape: shape, Log: cmd.OutOrStdout(),
			}, dataDir, asJSON, cmd.OutOrStdout())
			var failed *crashcli.FailedError
			if errors.As(err, &failed) {
				return &exitError{code: exitFailure, err: err}
			}
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&engines, "engine", []string{"pebble", "sqlite"}, "engines to crash, in order (comma list); LABEL=ENGINE crashes a labelled variant, with settings of its own (--engine-opt LABEL.key=value, --server-opt LABEL.key=value)")
	fl.DurationVar(&killAfter, "kill-after", 2*time.Second, "how long the clients insert before the engine is killed")
	fl.BoolVar(&durable, "durable", true, "durable commits (sync=true, ...); false: the engines' non-durable settings, whose loss is reported, not a failure")
	addCacheFlag(fl, &cacheSize)
	fl.StringArrayVar(&engineOpts, "engine-opt", nil, "engine setting key=value (engine.key=value for one engine), on top of the durability settings")
	fl.StringArrayVar(&serverOpts, "server-opt", nil, "managed server setting key=value, repeatable (as for run --managed)")
	fl.StringVar(&dataDir, "data-dir", "", "where the engines' data goes (default: temporary directories, removed afterwards); with several engines each uses <data-dir>/<label> (a bare engine's label is its name); kept")
	fl.IntVar(&shape.Clients, "clients", shape.Clients, "inserting clients, one table each")
	fl.IntVar(&shape.Indexes, "indexes", shape.Indexes, "secondary indexes per table (0-3), maintained by every insert")
	fl.IntVar(&shape.RowsPerCommit, "rows-per-commit", shape.RowsPerCommit, "rows per insert transaction")
	fl.BoolVar(&asJSON, "json", false, "print the results as JSON")
	return cmd
}

// newCrashtestChildCmd is the hidden child process of an embedded engine's
// crash test: it runs until the parent kills it.
func newCrashtestChildCmd() *cobra.Command {
	return &cobra.Command{
		Use:    crashtest.ChildCommand + " SPEC",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			err := crashtest.Child(context.Background(), args[0], os.Stdout)
			if err != nil && strings.TrimSpace(err.Error()) == "" {
				err = errors.New("crashtest child failed")
			}
			return err
		},
	}
}
