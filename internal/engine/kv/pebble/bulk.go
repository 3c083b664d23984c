package pebble

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cockroachdb/pebble/v2/objstorage/objstorageprovider"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"

	"rumbench/internal/engine/kv"
)

// The bulk path of index builds (kv.BulkLoader): the sorted entries are
// written as SSTs with the DB's own table options (bloom filters,
// compression, format) for the bottom level, and ingested in one
// DB.Ingest per index. The index's range is empty, so Pebble places the
// files in L6: no memtable, no WAL, no compaction rewrites them.

var _ kv.BulkLoader = (*store)(nil)

// BulkDir implements kv.BulkLoader: the data dir holding Pebble's
// directory, on the same filesystem, so ingestion links the files.
func (s *store) BulkDir() string { return filepath.Dir(s.dir) }

// NewBulkLoad implements kv.BulkLoader.
func (s *store) NewBulkLoad(start, end []byte, tmp string) (kv.BulkLoad, error) {
	// Open used a copy of the options with the defaults filled in: so
	// does this, so the SSTs match the DB's own (block sizes, filters).
	o := s.opts.Clone()
	o.EnsureDefaults()
	bottom := len(o.Levels) - 1
	return &bulkLoad{
		s:      s,
		tmp:    tmp,
		wopts:  o.MakeWriterOptions(bottom, s.db.TableFormat()),
		target: uint64(o.TargetFileSizes[bottom]),
	}, nil
}

type bulkLoad struct {
	s      *store
	tmp    string
	wopts  sstable.WriterOptions
	target uint64 // SST size at which the next file starts
	w      *sstable.Writer
	paths  []string
}

func (l *bulkLoad) Add(key, value []byte) error {
	if l.w != nil && l.w.Raw().EstimatedSize() >= l.target {
		if err := l.closeFile(); err != nil {
			return err
		}
	}
	if l.w == nil {
		path := filepath.Join(l.tmp, fmt.Sprintf("ingest-%p-%d.sst", l, len(l.paths)))
		f, err := vfs.Default.Create(path, vfs.WriteCategoryUnspecified)
		if err != nil {
			return fmt.Errorf("create SST: %w", err)
		}
		l.w = sstable.NewWriter(objstorageprovider.NewFileWritable(f), l.wopts)
		l.paths = append(l.paths, path)
	}
	return l.w.Set(key, value)
}

func (l *bulkLoad) closeFile() error {
	w := l.w
	l.w = nil
	if err := w.Close(); err != nil {
		return fmt.Errorf("write SST: %w", err)
	}
	return nil
}

// Finish ingests the SSTs: the index's entries appear at once.
func (l *bulkLoad) Finish() error {
	if l.w != nil {
		if err := l.closeFile(); err != nil {
			return err
		}
	}
	if len(l.paths) == 0 {
		return nil
	}
	if err := l.s.db.Ingest(context.Background(), l.paths); err != nil {
		return fmt.Errorf("ingest %d SSTs: %w", len(l.paths), err)
	}
	return nil
}

// Abort removes the SSTs; nothing was ingested.
func (l *bulkLoad) Abort() error {
	if l.w != nil {
		l.w.Close()
		l.w = nil
	}
	for _, p := range l.paths {
		os.Remove(p)
	}
	return nil
}
