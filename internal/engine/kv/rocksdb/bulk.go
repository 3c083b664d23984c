//go:build rocksdb

package rocksdb

/*
#cgo noescape rb_sst_put_keys
#cgo nocallback rb_sst_put_keys
#include <stdlib.h>
#include <stdint.h>
#include <rocksdb/c.h>

// rb_sst_put_keys adds n keys with empty values, keys[ends[i-1]:ends[i]],
// in one cgo call; it returns a malloc'd error or NULL.
static char *rb_sst_put_keys(rocksdb_sstfilewriter_t *w, const char *keys, const int64_t *ends, int n) {
	char *err = NULL;
	int64_t start = 0;
	for (int i = 0; i < n && !err; i++) {
		rocksdb_sstfilewriter_put(w, keys + start, (size_t)(ends[i] - start), "", 0, &err);
		start = ends[i];
	}
	return err;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/linxGnu/grocksdb"

	"rumbench/internal/engine/kv"
)

// The bulk path of index builds (kv.BulkLoader), as MyRocks' bulk load
// does it: the sorted entries are written by SstFileWriter with the
// column family's options (block-based table, bloom filter, compression)
// and ingested with IngestExternalFile, files moved (linked) into the DB.
// The range is empty, so RocksDB puts the files in the bottom level: no
// memtable, WAL or compaction. Ingestion goes to the base DB: the keys are
// unreachable until the kv layer publishes the index, so no transaction
// can hold a lock on them.

var (
	_ kv.BulkLoader = (*store)(nil)
	_ kv.BulkLoader = (*cfStore)(nil)
)

const (
	bulkFileSize = 64 << 20 // SST size at which the next file starts
	bulkBatch    = 1024     // keys per cgo call
)

// BulkDir implements kv.BulkLoader: the data dir holding RocksDB's
// directory, on the same filesystem, so ingestion links the files.
func (s *store) BulkDir() string { return filepath.Dir(s.dir) }

func (c *cfStore) BulkDir() string { return (*store)(c).BulkDir() }

func (c *cfStore) NewBulkLoad(start, end []byte, tmp string) (kv.BulkLoad, error) {
	return (*store)(c).NewBulkLoad(start, end, tmp)
}

// NewBulkLoad implements kv.BulkLoader.
func (s *store) NewBulkLoad(start, end []byte, tmp string) (kv.BulkLoad, error) {
	cf, err := s.cf(start)
	if err != nil {
		return nil, err
	}
	return &bulkLoad{s: s, cf: cf, tmp: tmp}, nil
}

type bulkLoad struct {
	s     *store
	cf    *grocksdb.ColumnFamilyHandle
	tmp   string
	env   *grocksdb.EnvOptions
	w     *grocksdb.SSTFileWriter
	paths []string
	// keys buffered for the next cgo call
	buf   []byte
	ends  []int64
	added int64 // keys in the current file
}

func (l *bulkLoad) Add(key, value []byte) error {
	if len(value) != 0 {
		return errors.New("rocksdb bulk load: index entries have empty values")
	}
	l.buf = append(l.buf, key...)
	l.ends = append(l.ends, int64(len(l.buf)))
	if len(l.ends) < bulkBatch {
		return nil
	}
	return l.flush()
}

// flush writes the buffered keys to the current SST, starting one if
// needed and the next when it is big enough.
func (l *bulkLoad) flush() error {
	if len(l.ends) == 0 {
		return nil
	}
	if l.w == nil {
		if l.env == nil {
			l.env = grocksdb.NewDefaultEnvOptions()
		}
		l.w = grocksdb.NewSSTFileWriter(l.env, l.s.opts)
		path := filepath.Join(l.tmp, fmt.Sprintf("ingest-%p-%d.sst", l, len(l.paths)))
		if err := l.w.Open(path); err != nil {
			l.w.Destroy()
			l.w = nil
			return fmt.Errorf("create SST: %w", err)
		}
		l.paths = append(l.paths, path)
		l.added = 0
	}
	cerr := C.rb_sst_put_keys((*C.rocksdb_sstfilewriter_t)(handle(l.w)),
		(*C.char)(unsafe.Pointer(unsafe.SliceData(l.buf))), (*C.int64_t)(unsafe.Pointer(unsafe.SliceData(l.ends))), C.int(len(l.ends)))
	if cerr != nil {
		msg := C.GoString(cerr)
		C.free(unsafe.Pointer(cerr))
		return fmt.Errorf("write SST: %s", msg)
	}
	l.added += int64(len(l.ends))
	l.buf, l.ends = l.buf[:0], l.ends[:0]
	if l.w.FileSize() >= bulkFileSize {
		return l.closeFile()
	}
	return nil
}

func (l *bulkLoad) closeFile() error {
	w := l.w
	l.w = nil
	err := w.Finish()
	w.Destroy()
	if err != nil {
		return fmt.Errorf("finish SST: %w", err)
	}
	return nil
}

// Finish ingests the SSTs: the index's entries appear at once.
func (l *bulkLoad) Finish() error {
	defer l.release()
	if err := l.flush(); err != nil {
		return err
	}
	if l.w != nil {
		if err := l.closeFile(); err != nil {
			return err
		}
	}
	if len(l.paths) == 0 {
		return nil
	}
	o := grocksdb.NewDefaultIngestExternalFileOptions()
	defer o.Destroy()
	o.SetMoveFiles(true)
	if err := l.s.db.IngestExternalFileCF(l.cf, l.paths, o); err != nil {
		return fmt.Errorf("ingest %d SSTs: %w", len(l.paths), err)
	}
	return nil
}

// Abort removes the SSTs; nothing was ingested.
func (l *bulkLoad) Abort() error {
	if l.w != nil {
		l.w.Destroy()
		l.w = nil
	}
	for _, p := range l.paths {
		os.Remove(p)
	}
	l.release()
	return nil
}

func (l *bulkLoad) release() {
	if l.env != nil {
		l.env.Destroy()
		l.env = nil
	}
}
