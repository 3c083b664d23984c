package main

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"rumbench/internal/cli/verifycli"
)

func newVerifyCmd() *cobra.Command {
	r := &verifycli.Request{}
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Check that every secondary index matches the primary key rows",
		Long: `Open an engine's data (a --data-dir kept from a run, or a server database) and
check every secondary index of every table against the primary key: the same
number of entries and the same (index columns, primary key) tuples.
With --workload, also check that workload's own invariants (linkbench: every
count row equals the visible links of its id and link type).
The engine is opened read-only: verify creates and changes nothing, so a
data dir or database that is missing, or holds no rumbench tables, is an
error, not a pass.
Exit code 0 when consistent, 1 when not, 2 on bad input (also nothing to
check).`,
		Example: "  rumbench verify --engine pebble --data-dir /data/rb/pebble\n  rumbench verify --engine pebble --data-dir /data/rb/zstd   # the variant zstd=pebble of a run with --data-dir /data/rb\n  rumbench verify --engine innodb --managed --data-dir /data/rb/innodb\n  rumbench verify --engine sqlite --data-dir /data/rb/sqlite --workload linkbench",
		Args:    argsNone,
		RunE: func(cmd *cobra.Command, args []string) error {
			err := verifycli.Run(context.Background(), r, cmd.OutOrStdout())
			var failed *verifycli.FailedError
			if errors.As(err, &failed) {
				return &exitError{code: exitFailure, err: failed.Err}
			}
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&r.Engine, "engine", "", "engine that wrote the data (required)")
	fl.StringVar(&r.DataDir, "data-dir", "", "the engine's data directory (embedded engines): a run's --data-dir, <data-dir>/<label> when it ran several engines or variants")
	fl.StringVar(&r.DSN, "dsn", "", "server address (server engines)")
	fl.StringVar(&r.Database, "database", "rumbench", "database to check (server engines)")
	fl.StringArrayVar(&r.EngineOpts, "engine-opt", nil, "engine setting key=value, repeatable")
	fl.BoolVar(&r.JSON, "json", false, "print the result as JSON")
	fl.StringVar(&r.Workload, "workload", "", "also check this workload's own invariants (linkbench: counts equal visible links)")
	fl.BoolVar(&r.Managed, "managed", false, "start the managed server a run kept in --data-dir (run --managed --keep-data), check it, and stop it again (it stays kept)")
	fl.StringVar(&r.Install, "install", "", "with --managed: the installation the kept server ran from (a variant's run --install LABEL=DIR); default the system's")
	return cmd
}
