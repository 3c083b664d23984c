package kv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"rumbench/internal/engine/kv/extsort"
	"rumbench/internal/model"
)

// The bulk index build (index_build=bulk), as databases build an index:
// read the table once, sort the new indexes' entries in memory chunks of at
// most index_build_memory, spill each sorted chunk (a run) to a file under
// the data dir, merge the runs and hand the entries, in key order, to the
// store's bulk path (BulkLoader). The whole build holds the transaction
// lock exclusively: writers and Txs wait, readers do not (they cannot see
// the new indexes until they are published). That is PostgreSQL's CREATE
// INDEX, not CREATE INDEX CONCURRENTLY: l.x runs with no other traffic, and
// index_build=online keeps the concurrent copy for callers that need it.
// The sort is package extsort's, one stream per index.

const (
	defaultBuildMemory = 64 << 20
	minBuildMemory     = extsort.MinMemory
	maxBuildMemory     = extsort.MaxMemory
	// buildDirPrefix names a build's temporary directory in BulkDir.
	buildDirPrefix = "rumbench-index-build-"
)

// bulkStats says how a bulk build went, for tests.
type bulkStats struct {
	entries int64
	runs    int // spills of the sort buffer (each a run file per index)
}

// createIndexesBulk builds the new indexes todo (key ids ids) of table st
// through bl and publishes them. The caller has created their keyspaces
// and cleared their ranges.
func (d *DB) createIndexesBulk(ctx context.Context, st *tableState, todo []model.Index, ids []byte, bl BulkLoader) error {
	d.txMu.Lock()
	defer d.txMu.Unlock()
	building, err := newTableState(st.id, st.schema, indexIDs(st), todo, ids, st.tail)
	if err != nil {
		return err
	}
	newIxs := building.ixs[len(building.ixs)-len(todo):]
	// Clearing a crashed build's leftovers drops a keyspace object
	// (Keyspaces stores): make each exist again.
	for i := range newIxs {
		if err := d.createKeyspace(newIxs[i].start, st.schema.Name+"."+newIxs[i].name); err != nil {
			return err
		}
	}
	stats, err := d.bulkBuild(ctx, building, newIxs, bl)
	d.lastBulk = stats
	if err != nil {
		return err
	}
	schema := copyTable(st.schema)
	schema.Indexes = append(schema.Indexes, todo...)
	done, err := newTableState(st.id, schema, append(indexIDs(st), ids...), nil, nil, st.tail)
	if err != nil {
		return err
	}
	b := d.store.NewBatch()
	defer b.Close()
	if err := d.writeMeta(b, done); err != nil {
		return err
	}
	if err := b.Commit(); err != nil {
		d.dropBuilt(newIxs)
		return fmt.Errorf("record schema: %w", err)
	}
	tables := d.tablesCopy()
	tables[st.schema.Name] = done
	// Published before the lock is released: a writer reloads the table
	// under the lock and so maintains the new indexes from its first write.
	d.publish(tables)
	return nil
}

// dropBuilt removes the entries of indexes whose build failed after some
// were loaded.
func (d *DB) dropBuilt(ixs []indexState) {
	for i := range ixs {
		d.store.DeleteRange(ixs[i].start, ixs[i].end)
	}
}

// bulkBuild sorts the entries of ixs for every row of st and loads them.
func (d *DB) bulkBuild(ctx context.Context, st *tableState, ixs []indexState, bl BulkLoader) (bulkStats, error) {
	var stats bulkStats
	// A build that crashed left its directory: builds of one DB run one at
	// a time (ddlMu) and the engine owns its data dir, so any is stale.
	if old, _ := filepath.Glob(filepath.Join(bl.BulkDir(), buildDirPrefix+"*")); len(old) > 0 {
		for _, dir := range old {
			os.RemoveAll(dir)
		}
	}
	tmp, err := os.MkdirTemp(bl.BulkDir(), buildDirPrefix)
	if err != nil {
		return stats, fmt.Errorf("temporary directory for the index build: %w", err)
	}
	defer os.RemoveAll(tmp)
	s := extsort.New(d.buildMemory, len(ixs), tmp)
	defer s.Wait() // before the directory is removed
	stats.entries, err = d.scanEntries(ctx, st, ixs, s)
	if werr := s.Wait(); err == nil {
		err = werr
	}
	if err != nil {
		return stats, err
	}
	stats.runs = s.Spills()
	loads := make([]BulkLoad, len(ixs))
	abort := func() {
		for _, l := range loads {
			if l != nil {
				l.Abort()
			}
		}
	}
	for i := range ixs {
		if loads[i], err = bl.NewBulkLoad(ixs[i].start, ixs[i].end, tmp); err != nil {
			abort()
			return stats, fmt.Errorf("start bulk load of index %s: %w", ixs[i].name, err)
		}
	}
	// Each index is merged and loaded by a goroutine of its own: the
	// store's writing (block compression, bloom filters, pages) is most of
	// the work, and the indexes are independent.
	fanIn := max(3, (extsort.MergeFanIn(d.buildMemory)-1)/len(ixs))
	errs := make([]error, len(ixs))
	var wg sync.WaitGroup
	for i := range ixs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = d.mergeIndex(ctx, s, i, &ixs[i], loads[i], fanIn)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		abort()
		return stats, err
	}
	for i, l := range loads {
		loads[i] = nil
		if err := l.Finish(); err != nil {
			abort()
			d.dropBuilt(ixs[:i])
			return stats, fmt.Errorf("bulk load of index %s: %w", ixs[i].name, err)
		}
	}
	return stats, nil
}

// mergeIndex merges the runs of index i of s and the entries left in
// memory into load.
func (d *DB) mergeIndex(ctx context.Context, s *extsort.Sorter, i int, ix *indexState, load BulkLoad, fanIn int) error {
	m, err := s.Merge(i, fanIn)
	if err != nil {
		return err
	}
	defer m.Close()
	return loadMerged(ctx, m, ix, load)
}

// scanEntries reads every row of st once and adds the entries of ixs to s.
func (d *DB) scanEntries(ctx context.Context, st *tableState, ixs []indexState, s *extsort.Sorter) (int64, error) {
	v, err := d.store.NewView()
	if err != nil {
		return 0, fmt.Errorf("read table: %w", err)
	}
	// Closed before anything is loaded: bbolt cannot grow its file while
	// a read view is open.
	defer v.Close()
	it, err := v.NewIter(st.pk.start, st.pk.end)
	if err != nil {
		return 0, fmt.Errorf("read table: %w", err)
	}
	defer it.Close()
	row := make(model.Row, len(st.schema.Columns))
	var scratch []byte
	var n int64
	for ok := it.First(); ok; ok = it.Next() {
		if n&4095 == 0 {
			if err := ctx.Err(); err != nil {
				return n, err
			}
		}
		scratch, err = st.pk.decodeKey(it.Key(), row, true, scratch[:0])
		if err == nil {
			err = st.decodeValue(it.Value(), row)
		}
		if err != nil {
			return n, fmt.Errorf("read table: %w", err)
		}
		for i := range ixs {
			if err := s.Add(i, ixs[i].appendKey(s.Buf(), row)); err != nil {
				return n, err
			}
			n++
		}
	}
	if err := it.Error(); err != nil {
		return n, fmt.Errorf("read table: %w", err)
	}
	return n, nil
}

// loadMerged hands the merged entries of ix to load, checking that keys
// strictly increase and that a unique index holds each prefix once.
func loadMerged(ctx context.Context, m *extsort.Merger, ix *indexState, load BulkLoad) error {
	var key, prev []byte
	for n := 1; ; n++ {
		var ok bool
		var err error
		if key, ok, err = m.Next(key); err != nil {
			return err
		}
		if !ok {
			return nil
		}
		if n&65535 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if !bytes.HasPrefix(key, ix.start) || (len(prev) > 0 && bytes.Compare(prev, key) >= 0) {
			return fmt.Errorf("index build: entries of index %s out of order, repeated or outside it (%x)", ix.name, key)
		}
		if ix.unique && !ix.prefixIsKey() && len(prev) > 0 {
			pn, err := ix.uniquePrefixLen(prev)
			if err != nil {
				return err
			}
			if kn, err := ix.uniquePrefixLen(key); err != nil {
				return err
			} else if kn == pn && bytes.Equal(prev[:pn], key[:kn]) {
				return fmt.Errorf("%w: unique index %s has two rows with the same %d-column prefix", model.ErrDuplicateKey, ix.name, len(ix.cols))
			}
		}
		if err := load.Add(key, nil); err != nil {
			return fmt.Errorf("bulk load of index %s: %w", ix.name, err)
		}
		prev = append(prev[:0], key...)
	}
}

// LastBulkBuild reports the entries and spilled runs of the last bulk
// index build (zero if none ran), for tests.
func (d *DB) LastBulkBuild() (entries int64, runs int) {
	d.ddlMu.Lock()
	defer d.ddlMu.Unlock()
	return d.lastBulk.entries, d.lastBulk.runs
}
