package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"rumbench/internal/model"
)

func readInternals(t *testing.T, db model.DB) model.Internals {
	t.Helper()
	in, err := db.(model.InternalsReporter).Internals(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func fileBytes(t *testing.T, path string) float64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return float64(fi.Size())
}

// TestInternalsWAL: with no checkpoint, and a cache large enough that no
// transaction spills (a spilled page is written to the WAL again at commit,
// over its frame), the WAL only grows, so what the counting VFS saw written
// to it is the file's growth, byte for byte, and every frame written is one
// sqlite3_db_status cache write plus its 24-byte header; a checkpoint then writes whole pages into the database file,
// bg_write_kb; and a closed connection's counters are kept.
func TestInternalsWAL(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openDB(t, dir, map[string]string{"wal_autocheckpoint": "0", "wal_checkpoint": "auto", "cache_size": "64MB"})
	defer db.Close()
	tbl := ibenchTable("counted")
	if err := db.CreateTable(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateIndexes(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	wal := filepath.Join(dir, FileName+"-wal")
	in0, size0 := readInternals(t, db), fileBytes(t, wal)
	c := openConn(t, db)
	insertRange(t, c, tbl, 0, 5000, 100)
	in1, size1 := readInternals(t, db), fileBytes(t, wal)
	d := func(name string) float64 { return in1.Raw[name] - in0.Raw[name] }
	t.Logf("5000 rows: raw deltas cache_hit %g cache_miss %g cache_write %g cache_spill %g wal_write_bytes %g (file +%g) db_write_bytes %g db_read_bytes %g",
		d("cache_hit"), d("cache_miss"), d("cache_write"), d("cache_spill"), d("wal_write_bytes"), size1-size0, d("db_write_bytes"), d("db_read_bytes"))
	if d("cache_spill") != 0 {
		t.Fatalf("%g pages spilled with a 64 MB cache", d("cache_spill"))
	}
	if got, want := d("wal_write_bytes"), size1-size0; got != want {
		t.Errorf("WAL bytes written %g, but the WAL file grew %g", got, want)
	}
	if got, want := d("wal_write_bytes"), d("cache_write")*(4096+24); got != want {
		t.Errorf("WAL bytes written %g, want cache_write %g × (4096 + 24) = %g", got, d("cache_write"), want)
	}
	if got, want := in1.Common[model.InternalLogKB]-in0.Common[model.InternalLogKB], d("wal_write_bytes")/1024; got != want {
		t.Errorf("log_kb grew %g, want %g", got, want)
	}
	if got := in1.Common[model.InternalBgWriteKB] - in0.Common[model.InternalBgWriteKB]; got != 0 {
		t.Errorf("bg_write_kb grew %g without a checkpoint", got)
	}
	if d("cache_hit") <= 0 || d("cache_write") <= 0 {
		t.Errorf("no cache hits or writes counted for 5000 inserts")
	}

	// A checkpoint copies the WAL's pages into the database file.
	var busy, frames, done int64
	if err := db.(*DB).SQL().QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &done); err != nil {
		t.Fatal(err)
	}
	in2 := readInternals(t, db)
	written := in2.Raw["db_write_bytes"] - in1.Raw["db_write_bytes"]
	t.Logf("checkpoint of %d frames (%d done): %g bytes written to the database file", frames, done, written)
	if written <= 0 || int64(written)%4096 != 0 || written > float64(done)*4096 {
		t.Errorf("checkpoint wrote %g bytes into the database file, want whole 4096-byte pages, at most the %d frames checkpointed", written, done)
	}
	if got := (in2.Common[model.InternalBgWriteKB] - in1.Common[model.InternalBgWriteKB]) * 1024; got != written {
		t.Errorf("bg_write_kb grew %g bytes, want the database file's %g", got, written)
	}

	// Closing the connection keeps its counters.
	c.Close()
	in3 := readInternals(t, db)
	for _, k := range []string{"cache_hit", "cache_miss", "cache_write"} {
		if in3.Raw[k] < in2.Raw[k] {
			t.Errorf("%s went down from %g to %g when a connection closed", k, in2.Raw[k], in3.Raw[k])
		}
	}
}

// TestInternalsRollbackJournal: in a rollback journal mode the journal's
// writes are the log and there is no background writer.
func TestInternalsRollbackJournal(t *testing.T) {
	ctx := context.Background()
	db := openDB(t, t.TempDir(), map[string]string{"journal_mode": "delete"})
	defer db.Close()
	tbl := ibenchTable("counted")
	if err := db.CreateTable(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	in0 := readInternals(t, db)
	c := openConn(t, db)
	defer c.Close()
	insertRange(t, c, tbl, 0, 1000, 100)
	in1 := readInternals(t, db)
	if _, ok := in1.Common[model.InternalBgWriteKB]; ok || in1.Scope == "" {
		t.Errorf("journal_mode=delete: bg_write_kb %v, scope %q; want none, and the scope saying why", in1.Common, in1.Scope)
	}
	if got := in1.Common[model.InternalLogKB] - in0.Common[model.InternalLogKB]; got <= 0 {
		t.Errorf("journal_mode=delete: log_kb grew %g over 10 commits", got)
	}
	if got := in1.Raw["wal_write_bytes"]; got != 0 {
		t.Errorf("journal_mode=delete: %g bytes written to a WAL", got)
	}
}
