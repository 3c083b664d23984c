package kv

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"

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

const (
	defaultBuildMemory = 64 << 20
	minBuildMemory     = 64 << 10
	maxBuildMemory     = 3 << 30 // sortEnt offsets are 32-bit
	// sortEntrySize is the memory of a buffered entry besides its key.
	sortEntrySize = 16
	// runReadBuf is the read buffer of each run in a merge.
	runReadBuf = 64 << 10
	// buildDirPrefix names a build's temporary directory in BulkDir.
	buildDirPrefix = "rumbench-index-build-"
)

// sortEnt is a buffered key: its place in the sorter's buffer and its first
// bytes after the index's common prefix, so most comparisons are one
// integer compare instead of a bytes.Compare through cache-cold memory.
type sortEnt struct {
	head uint64
	off  uint32
	n    uint32
}

// sorter sorts the entries of several indexes with one memory budget. A
// spill writes a run file per index, so each index is merged and loaded on
// its own, beside the others.
//
// It has two buffers of half the budget each: while one is sorted and
// spilled in the background, the scan fills the other.
type sorter struct {
	budget int64 // of one buffer
	buf    []byte
	ents   [][]sortEnt // per index
	dir    string      // where runs are spilled
	runs   [][]string  // per index
	spills int
	// spare is the other buffer, owned by the spill in flight (pending)
	// until wait returns.
	spare     []byte
	spareEnts [][]sortEnt
	pending   chan error
}

func newSorter(budget int64, indexes int, dir string) *sorter {
	// Each key buffer gets its whole size at once: grown by append it
	// would briefly hold old and new arrays (1.5x). Pages are only
	// resident once written.
	half := max(budget/2, minBuildMemory/2)
	return &sorter{budget: half, buf: make([]byte, 0, half), ents: make([][]sortEnt, indexes), runs: make([][]string, indexes), dir: dir}
}

func (s *sorter) used() int64 {
	n := int64(len(s.buf))
	for _, e := range s.ents {
		n += int64(len(e)) * sortEntrySize
	}
	return n
}

// add buffers the key just appended to s.buf (grown is the result of that
// append) for index i, spilling a run first when the budget is spent.
func (s *sorter) add(i int, grown []byte, start int) error {
	s.buf = grown
	s.ents[i] = append(s.ents[i], sortEnt{off: uint32(start), n: uint32(len(grown) - start)})
	if s.used() < s.budget {
		return nil
	}
	return s.rotate()
}

// rotate hands the full buffer to a background spill (after the previous
// one finished) and continues in the other.
func (s *sorter) rotate() error {
	if err := s.wait(); err != nil {
		return err
	}
	buf, ents := s.buf, s.ents
	if s.spare == nil {
		s.spare, s.spareEnts = make([]byte, 0, s.budget), make([][]sortEnt, len(ents))
	}
	s.buf, s.ents = s.spare[:0], s.spareEnts
	for i := range s.ents {
		s.ents[i] = s.ents[i][:0]
	}
	s.spare, s.spareEnts = buf, ents
	s.spills++
	done := make(chan error, 1)
	s.pending = done
	go func() { done <- s.spill(buf, ents) }()
	return nil
}

// wait waits for the spill in flight, if any.
func (s *sorter) wait() error {
	if s.pending == nil {
		return nil
	}
	err := <-s.pending
	s.pending = nil
	return err
}

// headScan is how many leading bytes of each key sortIndex examines for
// the positions where keys differ.
const headScan = 64

// sortIndex sorts one index's entries of buf.
func sortIndex(buf []byte, ents []sortEnt) {
	if len(ents) == 0 {
		return
	}
	key := func(e sortEnt) []byte { return buf[e.off : e.off+e.n] }
	// An index's keys agree on many byte positions (the table and index
	// id, the high bytes of small integers: productid < 10000 leaves 6 of
	// its 8 bytes constant), so the head is made of the first 8 positions
	// where some key differs from the first one, or is too short to have
	// a byte. Skipping positions where all keys agree keeps the order, and
	// almost every comparison is decided by the head.
	first := key(ents[0])
	var diff [headScan]byte
	minLen := len(first)
	for _, e := range ents[1:] {
		k := key(e)
		minLen = min(minLen, len(k))
		n := min(len(k), len(first), headScan)
		for p, b := range k[:n] {
			diff[p] |= b ^ first[p]
		}
	}
	var pos [8]int
	np := 0
	for p := 0; p < headScan && np < len(pos); p++ {
		if p >= minLen || diff[p] != 0 {
			pos[np] = p
			np++
		}
	}
	from := 0 // the first position where keys differ: ties compare from it
	if np > 0 {
		from = pos[0]
	}
	for i := range ents {
		k := key(ents[i])
		var h uint64
		for _, p := range pos[:np] {
			h <<= 8
			if p < len(k) {
				h |= uint64(k[p])
			}
		}
		ents[i].head = h << (8 * (8 - np))
	}
	slices.SortFunc(ents, func(a, b sortEnt) int {
		if a.head != b.head {
			if a.head < b.head {
				return -1
			}
			return 1
		}
		return bytes.Compare(buf[a.off+uint32(from):a.off+a.n], buf[b.off+uint32(from):b.off+b.n])
	})
}

// spill sorts the entries of buf and writes each index's to a new run
// file, the indexes in parallel (sorting is most of a spill's work). It
// runs beside the scan: it touches only buf, ents and s.runs.
func (s *sorter) spill(buf []byte, all [][]sortEnt) error {
	errs := make([]error, len(all))
	var wg sync.WaitGroup
	for i, ents := range all {
		if len(ents) == 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sortIndex(buf, ents)
			path, err := writeRun(s.dir, func(emit func([]byte) error) error {
				for _, e := range ents {
					if err := emit(buf[e.off : e.off+e.n]); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				errs[i] = err
				return
			}
			s.runs[i] = append(s.runs[i], path)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// writeRun writes the keys fill emits, length-prefixed, to a new run file.
func writeRun(dir string, fill func(emit func([]byte) error) error) (string, error) {
	f, err := os.CreateTemp(dir, "run-*")
	if err != nil {
		return "", fmt.Errorf("spill sorted run: %w", err)
	}
	w := bufio.NewWriterSize(f, 256<<10)
	var lenBuf [binary.MaxVarintLen64]byte
	err = fill(func(key []byte) error {
		n := binary.PutUvarint(lenBuf[:], uint64(len(key)))
		w.Write(lenBuf[:n])
		_, err := w.Write(key)
		return err
	})
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("spill sorted run %s: %w", f.Name(), err)
	}
	return f.Name(), nil
}

// source is one sorted input of the merge: a run file or the entries left
// in memory.
type source interface {
	// next advances; key is valid until the following call.
	next() (key []byte, ok bool, err error)
	close() error
}

// memSource yields sorted buffered entries.
type memSource struct {
	buf  []byte
	ents []sortEnt
	pos  int
}

func (m *memSource) next() ([]byte, bool, error) {
	if m.pos == len(m.ents) {
		return nil, false, nil
	}
	e := m.ents[m.pos]
	m.pos++
	return m.buf[e.off : e.off+e.n], true, nil
}

func (m *memSource) close() error { return nil }

type fileSource struct {
	f   *os.File
	r   *bufio.Reader
	key []byte
}

func openRun(path string) (*fileSource, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read sorted run: %w", err)
	}
	return &fileSource{f: f, r: bufio.NewReaderSize(f, runReadBuf)}, nil
}

func (fs *fileSource) next() ([]byte, bool, error) {
	n, err := binary.ReadUvarint(fs.r)
	if err == io.EOF {
		return nil, false, nil
	}
	if err == nil {
		fs.key = slices.Grow(fs.key[:0], int(n))[:n]
		_, err = io.ReadFull(fs.r, fs.key)
	}
	if err != nil {
		return nil, false, fmt.Errorf("read sorted run %s: %w", fs.f.Name(), err)
	}
	return fs.key, true, nil
}

func (fs *fileSource) close() error { return fs.f.Close() }

// merger yields the keys of its sources in order: a binary heap of the
// sources by current key (few sources: runs are index_build_memory each).
type merger struct {
	srcs []source
	keys [][]byte
	heap []int // source indexes, the smallest current key first
}

func newMerger(srcs []source) (*merger, error) {
	m := &merger{srcs: srcs, keys: make([][]byte, len(srcs))}
	for i, s := range srcs {
		k, ok, err := s.next()
		if err != nil {
			return nil, err
		}
		if ok {
			m.keys[i] = k
			m.heap = append(m.heap, i)
		}
	}
	for i := len(m.heap)/2 - 1; i >= 0; i-- {
		m.down(i)
	}
	return m, nil
}

func (m *merger) less(a, b int) bool {
	return bytes.Compare(m.keys[m.heap[a]], m.keys[m.heap[b]]) < 0
}

func (m *merger) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(m.heap) {
			return
		}
		c := l
		if r := l + 1; r < len(m.heap) && m.less(r, l) {
			c = r
		}
		if !m.less(c, i) {
			return
		}
		m.heap[i], m.heap[c] = m.heap[c], m.heap[i]
		i = c
	}
}

// next returns the smallest key, valid until the call after next.
// Callers copy what they keep.
func (m *merger) next(scratch []byte) ([]byte, bool, error) {
	if len(m.heap) == 0 {
		return scratch, false, nil
	}
	top := m.heap[0]
	out := append(scratch[:0], m.keys[top]...)
	k, ok, err := m.srcs[top].next()
	if err != nil {
		return scratch, false, err
	}
	if ok {
		m.keys[top] = k
	} else {
		last := len(m.heap) - 1
		m.heap[0] = m.heap[last]
		m.heap = m.heap[:last]
	}
	m.down(0)
	return out, true, nil
}

// mergeFanIn is how many runs one merge reads at once within the budget
// (each has a read buffer); more runs are merged in passes first.
func mergeFanIn(budget int64) int {
	n := int(budget / (2 * runReadBuf))
	if n < 4 {
		n = 4 // a tiny budget is exceeded by a few read buffers
	}
	return n
}

// reduceRuns merges runs in groups until at most fanIn are left, and
// returns them.
func reduceRuns(dir string, runs []string, fanIn int) ([]string, error) {
	fanIn = max(fanIn, 2) // a group of one would never shrink the list
	for len(runs) > fanIn {
		group := runs[:fanIn]
		srcs, err := openRuns(group)
		if err != nil {
			return runs, err
		}
		m, err := newMerger(srcs)
		if err == nil {
			var path string
			path, err = writeRun(dir, func(emit func([]byte) error) error {
				var key []byte
				for {
					var ok bool
					var err error
					if key, ok, err = m.next(key); err != nil || !ok {
						return err
					}
					if err := emit(key); err != nil {
						return err
					}
				}
			})
			if err == nil {
				runs = append(runs[fanIn:], path)
			}
		}
		closeSources(srcs)
		if err != nil {
			return runs, fmt.Errorf("merge sorted runs: %w", err)
		}
		for _, p := range group {
			os.Remove(p)
		}
	}
	return runs, nil
}

func openRuns(paths []string) ([]source, error) {
	var srcs []source
	for _, p := range paths {
		fs, err := openRun(p)
		if err != nil {
			closeSources(srcs)
			return nil, err
		}
		srcs = append(srcs, fs)
	}
	return srcs, nil
}

func closeSources(srcs []source) {
	for _, src := range srcs {
		src.close()
	}
}

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
	building, err := newTableState(st.id, st.schema, indexIDs(st), todo, ids)
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
	done, err := newTableState(st.id, schema, append(indexIDs(st), ids...), nil, nil)
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
	s := newSorter(d.buildMemory, len(ixs), tmp)
	defer s.wait() // before the directory is removed
	stats.entries, err = d.scanEntries(ctx, st, ixs, s)
	if werr := s.wait(); err == nil {
		err = werr
	}
	if err != nil {
		return stats, err
	}
	stats.runs = s.spills
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
	fanIn := max(3, (mergeFanIn(d.buildMemory)-1)/len(ixs))
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
func (d *DB) mergeIndex(ctx context.Context, s *sorter, i int, ix *indexState, load BulkLoad, fanIn int) error {
	sortIndex(s.buf, s.ents[i])
	runs, err := reduceRuns(s.dir, s.runs[i], fanIn-1)
	if err != nil {
		return err
	}
	srcs, err := openRuns(runs)
	if err != nil {
		return err
	}
	srcs = append(srcs, &memSource{buf: s.buf, ents: s.ents[i]})
	defer closeSources(srcs)
	m, err := newMerger(srcs)
	if err != nil {
		return err
	}
	return loadMerged(ctx, m, ix, load)
}

// scanEntries reads every row of st once and adds the entries of ixs to s.
func (d *DB) scanEntries(ctx context.Context, st *tableState, ixs []indexState, s *sorter) (int64, error) {
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
			start := len(s.buf)
			if err := s.add(i, ixs[i].appendKey(s.buf, row), start); err != nil {
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
func loadMerged(ctx context.Context, m *merger, ix *indexState, load BulkLoad) error {
	var key, prev []byte
	for n := 1; ; n++ {
		var ok bool
		var err error
		if key, ok, err = m.next(key); err != nil {
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
