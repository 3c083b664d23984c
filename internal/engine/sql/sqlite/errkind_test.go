package sqlite

import (
	"context"
	"errors"
	"testing"

	"rumbench/internal/enginetest"
	"rumbench/internal/model"
)

// TestErrorKinds: a write that finds the database locked is busy, both
// when rumbench's own write lock refuses it and when SQLite does (another
// process, here another open of the file, holds the write lock).
func TestErrorKinds(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	opts := map[string]string{"busy_timeout": "0"}
	db := openDB(t, dir, opts)
	defer db.Close()
	tbl := ibenchTable("busy")
	if err := db.CreateTable(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	c1, c2 := openConn(t, db), openConn(t, db)
	defer c1.Close()
	defer c2.Close()
	tx, err := c1.(model.Transactor).Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	err = c2.Insert(ctx, tbl, []model.Row{genRow(1)})
	enginetest.CheckKind(t, "insert while another connection holds the write lock", err, model.ErrBusy)

	other := openDB(t, dir, opts)
	defer other.Close()
	oc := openConn(t, other)
	defer oc.Close()
	err = oc.Insert(ctx, tbl, []model.Row{genRow(2)})
	enginetest.CheckKind(t, "insert while another open of the file holds its write lock", err, model.ErrBusy)
	if errors.Is(err, model.ErrConflict) || errors.Is(err, model.ErrDuplicateKey) {
		t.Errorf("busy error %v also matches another kind", err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if err := oc.Insert(ctx, tbl, []model.Row{genRow(2)}); err != nil {
		t.Fatalf("insert once the lock is free: %v", err)
	}
}
