package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"rumbench/internal/engine"
	"rumbench/internal/model"
	"rumbench/internal/plan"
	"rumbench/internal/runner"
	"rumbench/internal/verify"
)

func newVerifyCmd() *cobra.Command {
	var eng, dataDir, dsn, database, wl, install string
	var engineOpts []string
	var asJSON, managedSrv bool
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
			if install != "" && !managedSrv {
				return &runner.BadInputError{Err: errors.New("--install is the installation of a kept managed server: give it with --managed, or drop it")}
			}
			p, err := plan.PlanVerify(&plan.Verify{Engine: eng, DataDir: dataDir, Database: database, Workload: wl, EngineOpts: engineOpts})
			if err != nil {
				return err
			}
			ctx := context.Background()
			if managedSrv {
				srv, err := plan.StartKeptServer(ctx, p.Driver.Name(), dataDir, dsn, install)
				if err != nil {
					return err
				}
				defer srv.Stop()
				dsn = srv.DSN()
			}
			// ReadOnly: a check creates and changes nothing; data that is
			// not there is the user's input, not a pass.
			db, err := engine.Open(ctx, eng, model.Config{DataDir: dataDir, DSN: dsn, Database: database, Options: p.Options, ReadOnly: true})
			if err != nil {
				return p.OpenError(err)
			}
			defer db.Close()
			tables, err := db.Tables(ctx)
			if err != nil {
				return err
			}
			if len(tables) == 0 {
				return p.NothingToVerify()
			}
			res, err := verify.Run(ctx, db)
			if err != nil {
				return err
			}
			w := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(w)
				enc.SetIndent("", "  ")
				enc.Encode(res)
			} else {
				tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
				fmt.Fprintln(tw, "table\tindex\tpk rows\tindex entries\tresult")
				for _, ix := range res.Indexes {
					r := "consistent"
					if !ix.Consistent {
						r = "INCONSISTENT"
					}
					if ix.Duplicates > 0 {
						r += fmt.Sprintf(" (%d duplicates in a unique index)", ix.Duplicates)
					}
					name := ix.Index
					if ix.Unique {
						name += " (unique)"
					}
					fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\n", ix.Table, name, ix.PKRows, ix.Entries, r)
				}
				tw.Flush()
			}
			if !res.OK {
				return &exitError{code: exitFailure, err: errors.New("verify: indexes are inconsistent with the primary key")}
			}
			if p.Check != nil {
				ok, err := p.Check(ctx, db, w)
				if err != nil {
					return err
				}
				if !ok {
					return &exitError{code: exitFailure, err: fmt.Errorf("verify: the %s invariants do not hold", wl)}
				}
			}
			fmt.Fprintf(w, "OK: %d tables, every index consistent\n", res.Tables)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&eng, "engine", "", "engine that wrote the data (required)")
	fl.StringVar(&dataDir, "data-dir", "", "the engine's data directory (embedded engines): a run's --data-dir, <data-dir>/<label> when it ran several engines or variants")
	fl.StringVar(&dsn, "dsn", "", "server address (server engines)")
	fl.StringVar(&database, "database", "rumbench", "database to check (server engines)")
	fl.StringArrayVar(&engineOpts, "engine-opt", nil, "engine setting key=value, repeatable")
	fl.BoolVar(&asJSON, "json", false, "print the result as JSON")
	fl.StringVar(&wl, "workload", "", "also check this workload's own invariants (linkbench: counts equal visible links)")
	fl.BoolVar(&managedSrv, "managed", false, "start the managed server a run kept in --data-dir (run --managed --keep-data), check it, and stop it again (it stays kept)")
	fl.StringVar(&install, "install", "", "with --managed: the installation the kept server ran from (a variant's run --install LABEL=DIR); default the system's")
	return cmd
}
