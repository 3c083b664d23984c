package extsort

import (
	"bytes"
	"math/rand"
	"os"
	"slices"
	"strings"
	"testing"

	"rumbench/internal/engine/kv/keyenc"
)

// TestSorterOrder: the sorter's head shortcut and its spilled, merged runs
// give bytewise key order, for keys of mixed lengths (strings), keys that
// agree on most positions (small integers) and keys where one position
// decides after many equal ones.
func TestSorterOrder(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, budget := range []int64{1 << 30, 4 << 10} {
		s := New(budget, 2, t.TempDir())
		var want [][]byte
		for i := 0; i < 20000; i++ {
			ix := i % 2
			k := []byte{0, 0, 0, 7, byte(ix + 1)}
			k = keyenc.AppendInt(k, int64(r.Intn(5))-2)
			str := make([]byte, r.Intn(4))
			for j := range str {
				str[j] = []byte{0, 1, 0xFF, 'a'}[r.Intn(4)]
			}
			k = keyenc.AppendString(k, str)
			if r.Intn(3) == 0 {
				k = append(k, make([]byte, 70)...) // decided past headScan
			}
			k = keyenc.AppendInt(k, int64(i))
			if err := s.Add(ix, append(s.Buf(), k...)); err != nil {
				t.Fatal(err)
			}
			want = append(want, k)
		}
		slices.SortFunc(want, bytes.Compare)
		if err := s.Wait(); err != nil {
			t.Fatal(err)
		}
		var got [][]byte
		for ix := range s.ents {
			sortIndex(s.buf, s.ents[ix])
			runs, err := reduceRuns(s.dir, s.runs[ix], 3)
			if err != nil {
				t.Fatal(err)
			}
			if budget < 1<<20 && len(runs) != 3 {
				t.Fatalf("budget %d: %d runs after reduceRuns(3), want 3", budget, len(runs))
			}
			srcs, err := openRuns(runs)
			if err != nil {
				t.Fatal(err)
			}
			srcs = append(srcs, &memSource{buf: s.buf, ents: s.ents[ix]})
			m, err := newMerger(srcs)
			if err != nil {
				t.Fatal(err)
			}
			for {
				key, ok, err := m.Next(nil)
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					break
				}
				got = append(got, key)
			}
			closeSources(srcs)
		}
		if len(got) != len(want) {
			t.Fatalf("budget %d: merged %d keys, want %d", budget, len(got), len(want))
		}
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("budget %d: key %d is %x, want %x", budget, i, got[i], want[i])
			}
		}
	}
}

// TestSpillsAndMergeCleanUp: a budget the keys exceed spills runs, a budget
// they fit does not; Merge's passes remove the runs they merged, so at most
// fanIn-1 run files are left in the directory, and the Merger yields every
// key once, in order.
func TestSpillsAndMergeCleanUp(t *testing.T) {
	for _, tc := range []struct {
		budget     int64
		wantSpills bool
	}{{1 << 30, false}, {MinMemory, true}} {
		dir := t.TempDir()
		s := New(tc.budget, 1, dir)
		const n = 50000
		for i := n - 1; i >= 0; i-- {
			if err := s.Add(0, keyenc.AppendInt(s.Buf(), int64(i))); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Wait(); err != nil {
			t.Fatal(err)
		}
		if got := s.Spills() > 0; got != tc.wantSpills {
			t.Fatalf("budget %d: %d spills, want spills: %v", tc.budget, s.Spills(), tc.wantSpills)
		}
		const fanIn = 3
		m, err := s.Merge(0, fanIn)
		if err != nil {
			t.Fatal(err)
		}
		files, _ := os.ReadDir(dir)
		if len(files) > fanIn-1 {
			t.Errorf("budget %d: %d run files left after Merge(fanIn %d), want at most %d", tc.budget, len(files), fanIn, fanIn-1)
		}
		var key []byte
		for i := 0; ; i++ {
			var ok bool
			if key, ok, err = m.Next(key); err != nil {
				t.Fatal(err)
			}
			if !ok {
				if i != n {
					t.Fatalf("budget %d: merged %d keys, want %d", tc.budget, i, n)
				}
				break
			}
			if want := keyenc.AppendInt(nil, int64(i)); !bytes.Equal(key, want) {
				t.Fatalf("budget %d: key %d is %x, want %x", tc.budget, i, key, want)
			}
		}
		m.Close()
	}
}

// TestTruncatedRun: a run file cut short is an error naming the file, not
// a short result.
func TestTruncatedRun(t *testing.T) {
	dir := t.TempDir()
	path, err := writeRun(dir, func(emit func([]byte) error) error {
		return emit([]byte("a key of some length"))
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 5); err != nil {
		t.Fatal(err)
	}
	srcs, err := openRuns([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	defer closeSources(srcs)
	if _, err := newMerger(srcs); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("merge of a truncated run: %v, want an error naming %s", err, path)
	}
}
