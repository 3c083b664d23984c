// Package extsort is an external sort of byte keys: the keys of several
// independent streams (the kv layer's bulk index build has one per index)
// are buffered in one memory budget, sorted in chunks, spilled as sorted run
// files when the budget is spent, and merged back in key order.
package extsort

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
)

const (
	// MinMemory and MaxMemory bound a Sorter's budget.
	MinMemory = 64 << 10
	MaxMemory = 3 << 30 // sortEnt offsets are 32-bit
	// sortEntrySize is the memory of a buffered entry besides its key.
	sortEntrySize = 16
	// runReadBuf is the read buffer of each run in a merge.
	runReadBuf = 64 << 10
)

// sortEnt is a buffered key: its place in the Sorter's buffer and its first
// bytes after the index's common prefix, so most comparisons are one
// integer compare instead of a bytes.Compare through cache-cold memory.
type sortEnt struct {
	head uint64
	off  uint32
	n    uint32
}

// Sorter sorts the keys of several streams (numbered 0..n-1; the bulk index
// build's indexes) with one memory budget. A spill writes a run file per
// stream, so each stream is merged (Merge) and consumed on its own, beside
// the others.
//
// It has two buffers of half the budget each: while one is sorted and
// spilled in the background, the caller fills the other.
type Sorter struct {
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

// New returns a Sorter of streams streams within budget bytes (at least
// MinMemory is used) that spills its runs to files in dir.
func New(budget int64, streams int, dir string) *Sorter {
	// Each key buffer gets its whole size at once: grown by append it
	// would briefly hold old and new arrays (1.5x). Pages are only
	// resident once written.
	half := max(budget/2, MinMemory/2)
	return &Sorter{budget: half, buf: make([]byte, 0, half), ents: make([][]sortEnt, streams), runs: make([][]string, streams), dir: dir}
}

func (s *Sorter) used() int64 {
	n := int64(len(s.buf))
	for _, e := range s.ents {
		n += int64(len(e)) * sortEntrySize
	}
	return n
}

// Buf is the buffer the next key is appended to, in place: the caller
// passes the result of that append to Add.
func (s *Sorter) Buf() []byte { return s.buf }

// Add buffers the key just appended to Buf (grown is the result of that
// append) for stream i, spilling a run first when the budget is spent.
func (s *Sorter) Add(i int, grown []byte) error {
	start := len(s.buf)
	s.buf = grown
	s.ents[i] = append(s.ents[i], sortEnt{off: uint32(start), n: uint32(len(grown) - start)})
	if s.used() < s.budget {
		return nil
	}
	return s.rotate()
}

// rotate hands the full buffer to a background spill (after the previous
// one finished) and continues in the other.
func (s *Sorter) rotate() error {
	if err := s.Wait(); err != nil {
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

// Wait waits for the spill in flight, if any: call it before Merge, and
// before the spill directory is removed.
func (s *Sorter) Wait() error {
	if s.pending == nil {
		return nil
	}
	err := <-s.pending
	s.pending = nil
	return err
}

// Spills is how many times the buffer was spilled (each a run file per
// stream that had keys).
func (s *Sorter) Spills() int { return s.spills }

// Merge sorts the keys of stream i left in memory and returns a Merger of
// them and the stream's runs, which it first merges in passes down to
// fanIn-1 files (each open run has a read buffer). The caller closes the
// Merger.
func (s *Sorter) Merge(i int, fanIn int) (*Merger, error) {
	sortIndex(s.buf, s.ents[i])
	runs, err := reduceRuns(s.dir, s.runs[i], fanIn-1)
	if err != nil {
		return nil, err
	}
	srcs, err := openRuns(runs)
	if err != nil {
		return nil, err
	}
	srcs = append(srcs, &memSource{buf: s.buf, ents: s.ents[i]})
	m, err := newMerger(srcs)
	if err != nil {
		closeSources(srcs)
		return nil, err
	}
	return m, nil
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
func (s *Sorter) spill(buf []byte, all [][]sortEnt) error {
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

// Merger yields the keys of its sources in order: a binary heap of the
// sources by current key (few sources: runs are index_build_memory each).
type Merger struct {
	srcs []source
	keys [][]byte
	heap []int // source indexes, the smallest current key first
}

func newMerger(srcs []source) (*Merger, error) {
	m := &Merger{srcs: srcs, keys: make([][]byte, len(srcs))}
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

// Close closes the Merger's run files.
func (m *Merger) Close() { closeSources(m.srcs) }

func (m *Merger) less(a, b int) bool {
	return bytes.Compare(m.keys[m.heap[a]], m.keys[m.heap[b]]) < 0
}

func (m *Merger) down(i int) {
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

// Next returns the smallest key, valid until the call after next.
// Callers copy what they keep.
func (m *Merger) Next(scratch []byte) ([]byte, bool, error) {
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

// MergeFanIn is how many runs one merge reads at once within the budget
// (each has a read buffer); more runs are merged in passes first.
func MergeFanIn(budget int64) int {
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
					if key, ok, err = m.Next(key); err != nil || !ok {
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
