package kv

import (
	"bytes"
	"math/rand"
	"slices"
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
		s := newSorter(budget, 2, t.TempDir())
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
			start := len(s.buf)
			if err := s.add(ix, append(s.buf, k...), start); err != nil {
				t.Fatal(err)
			}
			want = append(want, k)
		}
		slices.SortFunc(want, bytes.Compare)
		if err := s.wait(); err != nil {
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
				key, ok, err := m.next(nil)
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
