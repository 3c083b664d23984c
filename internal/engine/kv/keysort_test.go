package kv

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"rumbench/internal/engine/kv/keyenc"
)

// TestSortKeysOrder: sortKeys orders as bytes.Compare does, for keys with a
// long common prefix, short keys, keys that are prefixes of others and keys
// that differ only past their first 16 bytes after the common prefix.
func TestSortKeysOrder(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	cases := map[string]func() []byte{
		"link": func() []byte { return linkKey(rnd.IntN(3), 1000+rnd.IntN(50), rnd.IntN(4)) },
		"long": func() []byte { // differ only in the last bytes
			k := append([]byte("t\x01\x02"), make([]byte, 30)...)
			k[len(k)-1] = byte(rnd.IntN(5))
			return k
		},
		"short": func() []byte { // prefixes of each other, zeros at the end
			k := make([]byte, rnd.IntN(20))
			for i := range k {
				k[i] = byte(rnd.IntN(2))
			}
			return k
		},
	}
	// A LinkBench load batch in its order (the types in turn, id1
	// ascending, id2 scattered): buckets nearly in order.
	batch := 0
	cases["link-batch"] = func() []byte {
		batch++
		return linkKey(1+batch%3, 1000+batch/5, rnd.IntN(1e6))
	}
	for name, key := range cases {
		for _, n := range []int{0, 1, 2, 17, 33, 500, 2000} {
			var a keyArena
			idx := make([]int, n)
			for i := range idx {
				a.add(append(a.buf, key()...))
				idx[i] = i
			}
			if name != "link-batch" {
				rnd.Shuffle(n, func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
			}
			sortKeys(&a, nil, idx)
			for j := 1; j < n; j++ {
				if bytes.Compare(a.key(idx[j-1]), a.key(idx[j])) > 0 {
					t.Fatalf("%s, %d keys: %x before %x", name, n, a.key(idx[j-1]), a.key(idx[j]))
				}
			}
			if seen := slices.Sorted(slices.Values(idx)); n > 0 && (seen[0] != 0 || seen[n-1] != n-1 || len(slices.Compact(seen)) != n) {
				t.Fatalf("%s, %d keys: idx is no longer a permutation: %v", name, n, idx)
			}
		}
	}
}

// linkKey is a LinkBench link's PK entry key: keyspace prefix, link type,
// id1, id2.
func linkKey(typ, id1, id2 int) []byte {
	k := []byte{0, 0, 0, 9, 0}
	k = keyenc.AppendInt(k, int64(typ))
	k = keyenc.AppendInt(k, int64(id1))
	return keyenc.AppendInt(k, int64(id2))
}

// BenchmarkSortKeys sorts the PK keys of a LinkBench load batch (1000
// links of about 200 nodes, their 2 link types in turn, id2 scattered)
// with sortKeys and with a bytes.Compare sort of the indexes.
func BenchmarkSortKeys(b *testing.B) {
	var a keyArena
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := range 1000 {
		a.add(append(a.buf, linkKey(1+i%2, 5000+i/5, rnd.IntN(1e6))...))
	}
	idx := make([]int, a.len())
	reset := func() {
		for i := range idx {
			idx[i] = i
		}
	}
	b.Run("sortKeys", func(b *testing.B) {
		var scratch []keyWords
		for b.Loop() {
			reset()
			scratch = sortKeys(&a, scratch, idx)
		}
	})
	// sortKeys' words sorted by comparisons alone, for the bucket pass's
	// and insertion sort's share.
	b.Run("words-comparisons", func(b *testing.B) {
		var ws []keyWords
		for b.Loop() {
			reset()
			ws = ws[:0]
			for _, i := range idx {
				k := a.key(i)[12:] // past the common prefix: keyspace and the type's first 7 bytes
				ws = append(ws, keyWords{w0: word(k), w1: word(k[8:]), i: i})
			}
			slices.SortFunc(ws, func(x, y keyWords) int { return compareWords(&a, x, y) })
		}
	})
	b.Run("bytes", func(b *testing.B) {
		for b.Loop() {
			reset()
			slices.SortFunc(idx, func(x, y int) int { return bytes.Compare(a.key(x), a.key(y)) })
		}
	})
}
