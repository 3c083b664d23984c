package bbolt

import (
	"fmt"
	"path/filepath"

	bolt "go.etcd.io/bbolt"

	"rumbench/internal/engine/kv"
)

// The bulk path of index builds (kv.BulkLoader): the sorted entries are
// appended in key order, bulkTxKeys per write transaction, with the
// bucket's FillPercent at 1.0, so every split leaves full pages behind
// (an append-only fill, as a B-tree's sorted build packs its leaves) and
// each transaction touches only the right edge of the tree.

var _ kv.BulkLoader = (*store)(nil)

const bulkTxKeys = 100000

// BulkDir implements kv.BulkLoader: the data dir holding the bbolt file.
func (s *store) BulkDir() string { return filepath.Dir(s.db.Path()) }

// NewBulkLoad implements kv.BulkLoader.
func (s *store) NewBulkLoad(start, end []byte, tmp string) (kv.BulkLoad, error) {
	return &bulkLoad{s: s, start: start, end: end}, nil
}

type bulkLoad struct {
	s          *store
	start, end []byte
	buf        []byte // keys then values, back to back
	ends       []int  // end of each key and of each value
}

func (l *bulkLoad) Add(key, value []byte) error {
	l.buf = append(l.buf, key...)
	l.ends = append(l.ends, len(l.buf))
	l.buf = append(l.buf, value...)
	l.ends = append(l.ends, len(l.buf))
	if len(l.ends) < 2*bulkTxKeys {
		return nil
	}
	return l.commit()
}

// commit appends the buffered entries in one write transaction.
func (l *bulkLoad) commit() error {
	if len(l.ends) == 0 {
		return nil
	}
	err := l.s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketName)
		if b == nil {
			return fmt.Errorf("bbolt: bucket missing")
		}
		b.FillPercent = 1.0
		prev := 0
		for i := 0; i < len(l.ends); i += 2 {
			k := l.buf[prev:l.ends[i]:l.ends[i]]
			v := l.buf[l.ends[i]:l.ends[i+1]:l.ends[i+1]]
			prev = l.ends[i+1]
			if err := b.Put(k, v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("bbolt bulk load: %w", err)
	}
	// bbolt keeps no reference to the keys after the commit.
	l.buf, l.ends = l.buf[:0], l.ends[:0]
	return nil
}

func (l *bulkLoad) Finish() error { return l.commit() }

// Abort deletes what earlier transactions committed.
func (l *bulkLoad) Abort() error {
	l.buf, l.ends = nil, nil
	return l.s.DeleteRange(l.start, l.end)
}
