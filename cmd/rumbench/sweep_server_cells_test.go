package main

import (
	"path/filepath"
	"sync"
	"testing"

	"rumbench/internal/results"
	"rumbench/internal/testdb"
)

// Cells of a sweep on a server engine run at once (pods of a --kubernetes
// sweep) each in a database of its own: both load every row, and neither
// drops or fills the other's tables.
func TestSweepServerCellsAtOnce(t *testing.T) {
	t.Parallel()
	admin := pgAdmin(t) // the server is there, or the test skips (fails under CI)
	// The sweep's --database, this process's own; the binary names each
	// cell's database <database>_<cell>. Dropped also when the test fails.
	database := testdb.Name(t, "rbtest_cells")
	cellDBs := []string{database + "_x0_pad20_c1", database + "_x3_pad20_c1"}
	for _, db := range cellDBs {
		freshDB(t, admin, db)
	}
	out := filepath.Join(t.TempDir(), "s")
	args := []string{"sweep", "--engine", "postgres", "--indexes", "0,3", "--rows", "3000", "--steps", "l.i0,l.x,l.i1",
		"--churn-rows", "2000", "--database", database, "--out", out, "--cell", "env"}
	var wg sync.WaitGroup
	errs := make([]string, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if so, se, code := rbEnv(t, []string{"0", "1"}[i], args...); code != 0 {
				errs[i] = so + se
			}
		}()
	}
	wg.Wait()
	for i, e := range errs {
		if e != "" {
			t.Fatalf("cell %d:\n%s", i, e)
		}
	}
	dbs := map[string]bool{}
	for _, cell := range []string{"x0-pad20-c1", "x3-pad20-c1"} {
		b, err := results.Read(filepath.Join(out, cell, "postgres"))
		if err != nil {
			t.Fatal(err)
		}
		if st := b.Steps["l.i0"]; st == nil || st.Inserted != 3000 || !b.Run.Complete {
			t.Fatalf("%s: l.i0 %+v, complete %v", cell, st, b.Run.Complete)
		}
		dbs[b.Run.Engine.Settings["database"]] = true
	}
	if !dbs[cellDBs[0]] || !dbs[cellDBs[1]] {
		t.Errorf("databases %v, want one per cell", dbs)
	}
}
