package kv

import (
	"fmt"
)

// beginRow starts the transaction of a one-row write of the row whose PK
// entry key is key: the store's own on a ConcurrentStore, else a plain one
// under the row's lock, which the caller releases with unlockRow when
// locked is true (a flag, not a returned func: a method value would be an
// allocation per write).
func (c *conn) beginRow(key []byte) (txn Txn, locked bool, err error) {
	if c.db.cc != nil {
		txn, err := c.db.cc.BeginUpdate()
		return txn, false, err
	}
	c.rowLock[0] = lockHash(key)
	c.db.rows.lockSet(c.rowLock[:])
	txn, err = c.db.store.Begin(false)
	if err != nil {
		c.db.rows.unlockSet(c.rowLock[:])
		return nil, false, err
	}
	return txn, true, nil
}

// unlockRow releases the lock beginRow took.
func (c *conn) unlockRow() { c.db.rows.unlockSet(c.rowLock[:]) }

// finishRow commits txn when the write found its row and did not fail, and
// rolls it back otherwise; errors say "verb table: ...".
func (c *conn) finishRow(txn Txn, found bool, err error, verb, table string) (bool, error) {
	if err != nil || !found {
		txn.Rollback()
		if err != nil {
			return false, fmt.Errorf("%s %s: %w", verb, table, err)
		}
		return false, nil
	}
	if err := txn.Commit(); err != nil {
		return false, fmt.Errorf("%s %s: commit: %w", verb, table, err)
	}
	return true, nil
}
