// Package verifycli carries out `rumbench verify`: plan the request, start
// the kept managed server when asked, open the engine's data read-only,
// check every index against the primary key (package verify) and the
// workload's own invariants, and print the result. It is apart from
// package verify because the planning it starts from (package plan)
// imports verify, through crashtest.
package verifycli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"rumbench/internal/engine"
	"rumbench/internal/model"
	"rumbench/internal/plan"
	"rumbench/internal/runner"
	"rumbench/internal/verify"
)

// Request is a verify request: what to check (plan.Verify) and how.
type Request struct {
	plan.Verify
	// DSN is the server's address (server engines); with Managed, the
	// kept server in DataDir is started from Install (the system's when
	// empty) and its address used instead.
	DSN     string
	Managed bool
	Install string
	// JSON prints the index check as JSON instead of a table.
	JSON bool
}

// FailedError is the verdict that the data checked is not consistent:
// exit 1, where errors that are the user's input are runner.BadInputError.
type FailedError struct{ Err error }

func (e *FailedError) Error() string { return e.Err.Error() }
func (e *FailedError) Unwrap() error { return e.Err }

// Run checks the data r names and prints the result to w.
func Run(ctx context.Context, r *Request, w io.Writer) error {
	if r.Install != "" && !r.Managed {
		return &runner.BadInputError{Err: errors.New("--install is the installation of a kept managed server: give it with --managed, or drop it")}
	}
	v := r.Verify
	p, err := plan.PlanVerify(&v)
	if err != nil {
		return err
	}
	dsn := r.DSN
	if r.Managed {
		srv, err := plan.StartKeptServer(ctx, p.Driver.Name(), r.DataDir, dsn, r.Install)
		if err != nil {
			return err
		}
		defer srv.Stop()
		dsn = srv.DSN()
	}
	// ReadOnly: a check creates and changes nothing; data that is not
	// there is the user's input, not a pass.
	db, err := engine.Open(ctx, r.Engine, model.Config{DataDir: r.DataDir, DSN: dsn, Database: r.Database, Options: p.Options, ReadOnly: true})
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
	if r.JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.Encode(res)
	} else {
		printIndexes(w, res)
	}
	if !res.OK {
		return &FailedError{Err: errors.New("verify: indexes are inconsistent with the primary key")}
	}
	if p.Check != nil {
		ok, err := p.Check(ctx, db, w)
		if err != nil {
			return err
		}
		if !ok {
			return &FailedError{Err: fmt.Errorf("verify: the %s invariants do not hold", r.Workload)}
		}
	}
	fmt.Fprintf(w, "OK: %d tables, every index consistent\n", res.Tables)
	return nil
}

// printIndexes prints the index check as a table, an index a row.
func printIndexes(w io.Writer, res *verify.Result) {
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
