package sqlite

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"rumbench/internal/model"
)

var _ model.InternalsReporter = (*DB)(nil)

// The counting VFS's file kinds and operations (iostat.h's enums).
const (
	ioDB = iota
	ioWAL
	ioJournal
	ioOther
	ioKinds
)

const (
	ioReads = iota
	ioReadBytes
	ioWrites
	ioWriteBytes
	ioSyncs
	ioOps
)

var (
	ioKindNames = [ioKinds]string{"db", "wal", "journal", "other"}
	ioOpNames   = [ioOps]string{"reads", "read_bytes", "writes", "write_bytes", "syncs"}
)

// dbStatusOps are the sqlite3_db_status counters read from every
// connection (SQLITE_DBSTATUS_CACHE_HIT, _MISS, _WRITE, _SPILL), by name.
var dbStatusOps = [...]struct {
	op   int
	name string
}{{7, "cache_hit"}, {8, "cache_miss"}, {9, "cache_write"}, {12, "cache_spill"}}

// status sums the sqlite3_db_status counters over every connection the
// database has had, the closed ones included. Each read resets SQLite's
// counter and adds it to the connection's total, so the totals are
// cumulative. sqlite3_db_status takes the connection's mutex
// (go-sqlite3 opens connections serialized), so it may run while a worker
// uses the connection; it then waits for the current call to return.
func (b *cacheBudget) status() ([len(dbStatusOps)]int64, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := b.closed
	for _, c := range b.conns {
		if err := c.readStatus(); err != nil {
			return out, err
		}
		for i, v := range c.status {
			out[i] += v
		}
	}
	return out, nil
}

// readStatus adds the connection's counters since the last read; b.mu is
// held.
func (c *budgetConn) readStatus() error {
	if c.handle == nil {
		return errors.New("sqlite: a connection's sqlite3 handle could not be had")
	}
	for i, o := range dbStatusOps {
		d, err := dbStatus(c.handle, o.op)
		if err != nil {
			return err
		}
		c.status[i] += d
	}
	return nil
}

// retire keeps a closing connection's counters before it closes.
func (b *cacheBudget) retire(c *budgetConn) {
	b.mu.Lock()
	defer b.mu.Unlock()
	_ = c.readStatus() // on failure its counts since the last read are lost
	for i, v := range c.status {
		b.closed[i] += v
	}
	// Out of the list before it closes: status must not read it again.
	b.conns = slices.DeleteFunc(b.conns, func(o *budgetConn) bool { return o == c })
}

// Internals implements model.InternalsReporter with SQLite's own counters:
// sqlite3_db_status's page-cache counters summed over every connection
// rumbench opened on the database (cache_miss: pages read from the file),
// and the reads, writes and syncs SQLite made to each of its files,
// counted by a VFS shim (iostat.c). In WAL mode log_kb is what was
// appended to the WAL and bg_write_kb what checkpoints copied into the
// database file (the only writes it gets in WAL mode); in a rollback
// journal mode log_kb is the journal's writes and there is no background
// writer. SQLite stalls no writer by itself: stall_s is absent.
func (db *DB) Internals(context.Context) (model.Internals, error) {
	if db.vfs == nil {
		return model.Internals{}, db.vfsErr
	}
	st, err := db.budget.status()
	if err != nil {
		return model.Internals{}, err
	}
	raw := map[string]float64{}
	for i, o := range dbStatusOps {
		raw[o.name] = float64(st[i])
	}
	io := db.vfs.read()
	for k, kn := range ioKindNames {
		for o, on := range ioOpNames {
			raw[kn+"_"+on] = float64(io[k][o])
		}
	}
	common := map[string]float64{model.InternalCacheMiss: raw["cache_miss"]}
	scope := ""
	switch db.journalMode {
	case "wal":
		common[model.InternalLogKB] = float64(io[ioWAL][ioWriteBytes]) / 1024
		common[model.InternalBgWriteKB] = float64(io[ioDB][ioWriteBytes]) / 1024
	case "memory":
		scope = "journal_mode=memory: no log on disk, and the database file is written at each commit, not in the background"
	default:
		common[model.InternalLogKB] = float64(io[ioJournal][ioWriteBytes]) / 1024
		scope = fmt.Sprintf("journal_mode=%s: the database file is written at each commit, not in the background (no bg_write_kb)", db.journalMode)
	}
	return model.Internals{Raw: raw, Common: common, Scope: scope}, nil
}
