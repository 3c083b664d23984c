package enginetest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"rumbench/internal/model"
	"rumbench/internal/verify"
	"rumbench/internal/workload/ibench"
)

// Semantics checks, on an opened engine, the operations whose meaning must
// be the same on every engine for results to be comparable (issue 12):
// DeleteOldest deletes from the caller's lower bound, and Insert enforces the
// primary key and unique secondary indexes. It creates and drops tables
// sem_del, sem_dup and sem_uniq (and RowOps' tables).
func Semantics(t *testing.T, db model.DB) { SemanticsLacking(t, db, Lacks{}) }

// SemanticsLacking is Semantics on an engine (or a server) that lacks the
// capabilities lacks declares: the parts that need one check that the
// engine refuses it as declared, then skip with the declared reason.
func SemanticsLacking(t *testing.T, db model.DB, lacks Lacks) {
	t.Run("BoundedDelete", func(t *testing.T) { boundedDelete(t, db) })
	t.Run("DuplicateKey", func(t *testing.T) { duplicateKey(t, db) })
	t.Run("UniqueIndex", func(t *testing.T) { uniqueIndex(t, db) })
	t.Run("RowOps", func(t *testing.T) { RowOpsLacking(t, db, lacks) })
}

// Lacks declares capabilities the engine under test does not have, each as
// the one-line reason why (empty: it has it). The zero Lacks runs every
// part. A declaration is itself checked, so it cannot hide a regression:
// the part fails if the engine does not refuse the capability as declared.
type Lacks struct {
	// Transactions: Begin on a connection (model.Transactor) fails with an
	// error wrapping model.ErrNotSupported — e.g. a standalone MongoDB
	// server or FerretDB, which run no multi-document transactions. The
	// RowOps parts TxRollbackCommit and TxConcurrentCounts skip.
	Transactions string
}

// skipWithoutTransactions skips the test when lacks declares no
// transactions and the engine refuses Begin as declared, and fails it when
// the engine does not.
func (lacks Lacks) skipWithoutTransactions(t *testing.T, db model.DB) {
	t.Helper()
	reason, err := lacks.checkTransactions(db)
	if err != nil {
		t.Fatal(err)
	}
	if reason != "" {
		t.Skip(reason)
	}
}

// checkTransactions returns the skip message when lacks declares no
// transactions, after checking that Begin fails with model.ErrNotSupported
// (an error when it does not); "" when none is declared.
func (lacks Lacks) checkTransactions(db model.DB) (string, error) {
	if lacks.Transactions == "" {
		return "", nil
	}
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		return "", err
	}
	defer c.Close()
	tr, ok := c.(model.Transactor)
	if !ok {
		return "no transactions (the connection is not a model.Transactor): " + lacks.Transactions, nil
	}
	tx, err := tr.Begin(ctx)
	if err == nil {
		tx.Rollback(ctx)
		return "", fmt.Errorf("declared without transactions (%s), but Begin succeeded: drop the declaration", lacks.Transactions)
	}
	if !errors.Is(err, model.ErrNotSupported) {
		return "", fmt.Errorf("declared without transactions (%s), but Begin failed with %v, want an error wrapping model.ErrNotSupported", lacks.Transactions, err)
	}
	return "no multi-document transactions: " + lacks.Transactions, nil
}

// semTable creates an ibench table with its three indexes holding the rows
// with PKs [1, n], and returns it with a connection and the row generator.
func semTable(t *testing.T, db model.DB, name string, n int64) (*model.Table, model.Conn, *ibench.RowGen) {
	t.Helper()
	ctx := context.Background()
	tbl := ibench.Table(name, ibench.MaxIndexes, 20)
	if err := db.CreateTable(ctx, tbl); err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	t.Cleanup(func() { db.DropTable(context.Background(), tbl) })
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	gen := ibench.NewRowGen(3, 0, 10, 20, 50)
	b := ibench.NewBatch(10, 20)
	for pk := int64(1); pk <= n; pk += 10 {
		if err := c.Insert(ctx, tbl, gen.Fill(b, pk, int(min(10, n-pk+1)), 1700000000)); err != nil {
			t.Fatalf("insert into %s: %v", name, err)
		}
	}
	if err := db.CreateIndexes(ctx, tbl); err != nil {
		t.Fatalf("create indexes on %s: %v", name, err)
	}
	return tbl, c, gen
}

// livePKs returns the PKs of t in order, from a full PK scan.
func livePKs(t *testing.T, c model.Conn, tbl *model.Table) []int64 {
	t.Helper()
	var out []int64
	if _, err := c.Scan(context.Background(), tbl, model.ScanSpec{Index: -1}, func(r model.Row) bool {
		out = append(out, r[0].Int)
		return true
	}); err != nil {
		t.Fatalf("scan %s: %v", tbl.Name, err)
	}
	return out
}

// pkRange lists [lo, hi].
func pkRange(lo, hi int64) []int64 {
	var out []int64
	for pk := lo; pk <= hi; pk++ {
		out = append(out, pk)
	}
	return out
}

func checkIndexes(t *testing.T, db model.DB, tables ...string) {
	t.Helper()
	res, err := verify.Run(context.Background(), db)
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	want := map[string]bool{}
	for _, name := range tables {
		want[name] = true
	}
	for _, ix := range res.Indexes {
		if want[ix.Table] && !ix.Consistent {
			t.Errorf("index %s.%s is inconsistent with its table: %+v", ix.Table, ix.Index, ix)
		}
	}
}

// boundedDelete: DELETE ... WHERE pk >= from ORDER BY pk LIMIT n.
func boundedDelete(t *testing.T, db model.DB) {
	ctx := context.Background()
	tbl, c, _ := semTable(t, db, "sem_del", 100)
	del := func(from model.Row, n, want int) {
		t.Helper()
		got, err := c.DeleteOldest(ctx, tbl, from, n)
		if err != nil || got != want {
			t.Fatalf("DeleteOldest(from %v, %d) = %d, %v; want %d", from, n, got, err, want)
		}
	}
	// From the middle: the rows below the bound stay.
	del(model.Row{{Int: 41}}, 10, 10)
	// From inside the deleted range: the next live rows.
	del(model.Row{{Int: 45}}, 3, 3)
	// Without a bound: from the table's start.
	del(nil, 5, 5)
	// Fewer rows than asked at the end, none above the last.
	del(model.Row{{Int: 95}}, 10, 6)
	del(model.Row{{Int: 1000}}, 10, 0)
	var want []int64
	want = append(want, pkRange(6, 40)...)
	want = append(want, pkRange(54, 94)...)
	if got := livePKs(t, c, tbl); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("rows left %v, want %v", got, want)
	}
	if _, err := c.DeleteOldest(ctx, tbl, model.Row{{Int: 1}, {Int: 2}}, 1); err == nil {
		t.Error("DeleteOldest with a bound longer than the primary key: want an error")
	}
	checkIndexes(t, db, tbl.Name)
}

// duplicateKey: an insert of an existing key, or of one key twice, fails
// with model.ErrDuplicateKey and changes nothing.
func duplicateKey(t *testing.T, db model.DB) {
	ctx := context.Background()
	tbl, c, gen := semTable(t, db, "sem_dup", 20)
	row := func(pk int64, now int64) model.Row {
		r := make(model.Row, len(tbl.Columns))
		gen.Row(r, pk, now)
		return r
	}
	var before []model.Row
	if _, err := c.Get(ctx, tbl, []model.Row{{{Int: 5}}}, func(r model.Row) { before = append(before, model.CopyRow(nil, r)) }); err != nil || len(before) != 1 {
		t.Fatalf("get 5: %v %v", before, err)
	}
	// The duplicate of 5 differs in every indexed column's source (the
	// generator's columns depend on the PK only, so use another PK's row).
	dup := row(1005, 1800000000)
	dup[0].Int = 5
	for _, tc := range []struct {
		name string
		rows []model.Row
	}{
		{"an existing key", []model.Row{row(21, 1700000000), dup, row(22, 1700000000)}},
		{"one key twice", []model.Row{row(30, 1700000000), row(31, 1700000000), row(30, 1700000000)}},
		{"only an existing key", []model.Row{dup}},
	} {
		err := c.Insert(ctx, tbl, tc.rows)
		if !errors.Is(err, model.ErrDuplicateKey) {
			t.Errorf("insert of %s: %v, want an error wrapping model.ErrDuplicateKey", tc.name, err)
			continue
		}
		t.Logf("insert of %s: %v", tc.name, err)
	}
	if got := livePKs(t, c, tbl); fmt.Sprint(got) != fmt.Sprint(pkRange(1, 20)) {
		t.Fatalf("rows after the failed inserts %v, want 1..20 (a failed insert writes nothing)", got)
	}
	var after []model.Row
	if _, err := c.Get(ctx, tbl, []model.Row{{{Int: 5}}}, func(r model.Row) { after = append(after, model.CopyRow(nil, r)) }); err != nil || len(after) != 1 {
		t.Fatalf("get 5: %v %v", after, err)
	}
	if fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("row 5 is %v after the duplicate insert, was %v", after, before)
	}
	checkIndexes(t, db, tbl.Name)
}

// uniqueIndex: a unique secondary index refuses a row whose index columns
// another row has (in the table or in the same batch) with an error
// wrapping model.ErrDuplicateKey, writing nothing of the batch; a row that
// differs in one of them is accepted; building a unique index over
// duplicate values fails the same way and leaves no index behind.
func uniqueIndex(t *testing.T, db model.DB) {
	ctx := context.Background()
	tbl := ibench.Table("sem_uniq", 0, 20)
	if err := db.CreateTable(ctx, tbl); err != nil {
		t.Fatalf("create %s: %v", tbl.Name, err)
	}
	t.Cleanup(func() { db.DropTable(context.Background(), tbl) })
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	gen := ibench.NewRowGen(3, 0, 10, 20, 50)
	// Row pk has (cashregisterid, productid) = (reg, prod) and price 7.
	row := func(pk, reg, prod int64) model.Row {
		r := make(model.Row, len(tbl.Columns))
		gen.Row(r, pk, 1700000000)
		r[ibench.ColCashRegisterID].Int, r[ibench.ColProductID].Int, r[ibench.ColPrice].Int = reg, prod, 7
		return r
	}
	var rows []model.Row
	for pk := int64(1); pk <= 10; pk++ {
		rows = append(rows, row(pk, pk, pk))
	}
	if err := c.Insert(ctx, tbl, rows); err != nil {
		t.Fatalf("insert: %v", err)
	}
	// One unique index without the PK (the check reads a prefix), one
	// with it (the ibench shape: the whole entry key).
	tbl.Indexes = []model.Index{
		{Name: "uq_reg", Columns: []int{ibench.ColCashRegisterID, ibench.ColProductID}, Unique: true},
		{Name: "uq_market", Columns: []int{ibench.ColProductID, ibench.ColCustomerID, ibench.ColPrice, ibench.ColTransactionID}, Unique: true},
	}
	if err := db.CreateIndexes(ctx, tbl); err != nil {
		t.Fatalf("create unique indexes over unique values: %v", err)
	}
	for _, tc := range []struct {
		name string
		rows []model.Row
	}{
		{"a value in the table", []model.Row{row(11, 3, 3)}},
		{"a value in the table after a good row", []model.Row{row(12, 12, 12), row(13, 4, 4)}},
		{"one value twice in the batch", []model.Row{row(14, 50, 50), row(15, 50, 50)}},
	} {
		err := c.Insert(ctx, tbl, tc.rows)
		if !errors.Is(err, model.ErrDuplicateKey) {
			t.Errorf("insert of %s: %v, want an error wrapping model.ErrDuplicateKey", tc.name, err)
			continue
		}
		t.Logf("insert of %s: %v", tc.name, err)
	}
	if got := livePKs(t, c, tbl); fmt.Sprint(got) != fmt.Sprint(pkRange(1, 10)) {
		t.Fatalf("rows after the refused inserts %v, want 1..10 (a failed insert writes nothing)", got)
	}
	// Values that differ in one column are not duplicates.
	if err := c.Insert(ctx, tbl, []model.Row{row(16, 3, 4), row(17, 4, 3)}); err != nil {
		t.Fatalf("insert of values differing in one column: %v", err)
	}
	checkIndexes(t, db, tbl.Name)
	// Every row has price 7: a unique index on it cannot be built.
	tbl.Indexes = append(tbl.Indexes, model.Index{Name: "uq_price", Columns: []int{ibench.ColPrice}, Unique: true})
	if err := db.CreateIndexes(ctx, tbl); !errors.Is(err, model.ErrDuplicateKey) {
		t.Fatalf("build of a unique index over duplicate values: %v, want an error wrapping model.ErrDuplicateKey", err)
	}
	tables, err := db.Tables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, got := range tables {
		if got.Name == tbl.Name && len(got.Indexes) != 2 {
			t.Errorf("indexes after the failed build: %+v, want uq_reg and uq_market", got.Indexes)
		}
		for _, ix := range got.Indexes {
			if got.Name == tbl.Name && !ix.Unique {
				t.Errorf("index %s is recorded as not unique", ix.Name)
			}
		}
	}
}
