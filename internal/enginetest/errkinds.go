package enginetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"rumbench/internal/model"
)

// CrossedUpdates makes two transactions update two rows in opposite
// orders, each holding the row the other wants next: a real conflict the
// engine must break (a deadlock, or a first writer that wins). It returns
// the error of the loser, after rolling both back; a test asserts its kind.
func CrossedUpdates(t *testing.T, db model.DB, name string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	tbl := &model.Table{Name: name, Columns: []model.Column{{Name: "id", Type: model.Int}, {Name: "n", Type: model.Int}}, PK: []int{0}}
	if err := db.CreateTable(ctx, tbl); err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
	t.Cleanup(func() { db.DropTable(context.Background(), tbl) })
	var txs [2]model.Tx
	for i := range txs {
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if i == 0 {
			if err := c.Insert(ctx, tbl, []model.Row{{{Int: 1}, {Int: 0}}, {{Int: 2}, {Int: 0}}}); err != nil {
				t.Fatalf("insert into %s: %v", name, err)
			}
		}
		tr, ok := c.(model.Transactor)
		if !ok {
			t.Fatalf("%T has no transactions", c)
		}
		if txs[i], err = tr.Begin(ctx); err != nil {
			t.Fatal(err)
		}
		defer txs[i].Rollback(context.Background())
	}
	update := func(tx model.Tx, pk int64) error {
		_, err := tx.Update(ctx, tbl, model.Row{{Int: pk}}, []model.Change{{Col: 1, Value: model.Value{Int: 1}}})
		return err
	}
	for i, tx := range txs {
		if err := update(tx, int64(i+1)); err != nil {
			t.Fatalf("transaction %d's first update: %v", i, err)
		}
	}
	// The first waits for row 2 (where the engine waits), the second then
	// asks for row 1: a cycle.
	first := make(chan error, 1)
	go func() { first <- update(txs[0], 2) }()
	time.Sleep(200 * time.Millisecond)
	second := update(txs[1], 1)
	if second != nil {
		// Releases the first, unless the engine failed it too (WiredTiger
		// fails both writers of a row another transaction changed).
		txs[1].Rollback(context.Background())
		<-first
		return second
	}
	err := <-first
	if err == nil {
		t.Fatal("both crossed updates succeeded: the engine let a transaction write a row another one holds")
	}
	return err
}

// CheckKind fails the test unless err is of kind want (errors.Is), and
// logs it.
func CheckKind(t *testing.T, what string, err error, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: %v, want an error of kind %v", what, err, want)
		return
	}
	t.Logf("%s: %v (kind %v)", what, err, want)
}
