package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"rumbench/internal/engine"
	"rumbench/internal/model"
	"rumbench/internal/runner"
	"rumbench/internal/verify"
)

func newVerifyCmd() *cobra.Command {
	var eng, dataDir, dsn, database string
	var engineOpts []string
	var asJSON, managedSrv bool
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Check that every secondary index matches the primary key rows",
		Long: `Open an engine's data (a --data-dir kept from a run, or a server database) and
check every secondary index of every table against the primary key: the same
number of entries and the same (index columns, primary key) tuples.
Exit code 0 when consistent, 1 when not, 2 on bad input.`,
		Example: "  rumbench verify --engine pebble --data-dir /data/rb/pebble\n  rumbench verify --engine innodb --managed --data-dir /data/rb/innodb",
		Args:    argsNone,
		RunE: func(cmd *cobra.Command, args []string) error {
			bad := func(err error) error { return &runner.BadInputError{Err: err} }
			if eng == "" {
				return bad(fmt.Errorf("--engine is required (one of %s)", strings.Join(engine.Names(), ", ")))
			}
			d, err := engine.Lookup(eng)
			if err != nil {
				return bad(err)
			}
			if d.Kind() == model.Embedded {
				if dataDir == "" {
					return bad(fmt.Errorf("--data-dir is required for embedded engine %s", eng))
				}
				if _, err := os.Stat(dataDir); err != nil {
					return bad(fmt.Errorf("--data-dir %s does not exist: give the data dir of a run (runs keep it when --data-dir is set)", dataDir))
				}
			}
			opts, err := parseEngineOpts(engineOpts)
			if err != nil {
				return bad(err)
			}
			ctx := context.Background()
			if managedSrv {
				srv, err := startKeptServer(ctx, d, dataDir, dsn)
				if err != nil {
					return err
				}
				defer srv.Stop()
				dsn = srv.DSN()
			}
			db, err := engine.Open(ctx, eng, model.Config{DataDir: dataDir, DSN: dsn, Database: database, Options: opts})
			if err != nil {
				if errors.Is(err, engine.ErrForeignData) {
					return bad(err)
				}
				return err
			}
			defer db.Close()
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
			if res.Tables == 0 {
				fmt.Fprintln(w, "no rumbench tables found")
			}
			if !res.OK {
				return &exitError{code: exitFailure, err: errors.New("verify: indexes are inconsistent with the primary key")}
			}
			fmt.Fprintf(w, "OK: %d tables, every index consistent\n", res.Tables)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&eng, "engine", "", "engine that wrote the data (required)")
	fl.StringVar(&dataDir, "data-dir", "", "the engine's data directory (embedded engines)")
	fl.StringVar(&dsn, "dsn", "", "server address (server engines)")
	fl.StringVar(&database, "database", "rumbench", "database to check (server engines)")
	fl.StringArrayVar(&engineOpts, "engine-opt", nil, "engine setting key=value, repeatable")
	fl.BoolVar(&asJSON, "json", false, "print the result as JSON")
	fl.BoolVar(&managedSrv, "managed", false, "start the managed server a run kept in --data-dir (run --managed --keep-data), check it, and stop it again (it stays kept)")
	return cmd
}
