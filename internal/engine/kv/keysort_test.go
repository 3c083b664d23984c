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
// that differ only past their first 16 bytes after the common prefix; in
// order, shuffled (which takes the radix pass) and in a load batch's order.
func TestSortKeysOrder(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	cases := map[string]func() []byte{
		"link": func() []byte { return linkKey(rnd.IntN(3), 1000+rnd.IntN(50), rnd.IntN(4)) },
		"long": func() []byte { // differ only in the last bytes
			k := append([]byte("t\x01\x02"), make([]byte, 30)...)
			k[len(k)-1] = byte(rnd.IntN(5))
			return k
		},
		"tail": func() []byte { // equal words, the rest deciding (ties by the hundred)
			k := make([]byte, 24)
			k[0], k[9], k[23] = byte(rnd.IntN(2)), byte(rnd.IntN(3)), byte(rnd.IntN(256))
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

// BenchmarkSortKeys sorts the PK keys of LinkBench load batches with
// sortKeys and with a bytes.Compare sort of the indexes: "few", 1000 links
// of 200 nodes (5 each, the 2 link types in turn, id2 scattered); "load",
// 64 batches of 1000 links as the load makes them (out-degrees with
// P(d) ∝ 1/(d+1)² over [0, 1000], a node's links the types in turn, id2
// stepping by a stride near n/φ over 10 million nodes), whose high-degree
// nodes overrun the insertion sort. Times are per batch.
func BenchmarkSortKeys(b *testing.B) {
	rnd := rand.New(rand.NewPCG(1, 2))
	var few keyArena
	for i := range 1000 {
		few.add(append(few.buf, linkKey(1+i%2, 5000+i/5, rnd.IntN(1e6))...))
	}
	batches := map[string][]*keyArena{"few": {&few}, "load": loadBatches(64, 1000)}
	for _, name := range []string{"few", "load"} {
		arenas := batches[name]
		idx := make([]int, 1000)
		reset := func(a *keyArena) []int {
			idx = idx[:a.len()]
			for i := range idx {
				idx[i] = i
			}
			return idx
		}
		b.Run(name+"/sortKeys", func(b *testing.B) {
			var scratch []keyWords
			for b.Loop() {
				for _, a := range arenas {
					scratch = sortKeys(a, scratch, reset(a))
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(arenas)), "ns/batch")
		})
		b.Run(name+"/bytes", func(b *testing.B) {
			for b.Loop() {
				for _, a := range arenas {
					slices.SortFunc(reset(a), func(x, y int) int { return bytes.Compare(a.key(x), a.key(y)) })
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(arenas)), "ns/batch")
		})
	}
}

// loadBatches returns n batches of per link keys in a LinkBench load's
// order (see BenchmarkSortKeys).
func loadBatches(n, per int) []*keyArena {
	const nodes, maxDegree = 10_000_000, 1000
	cdf := make([]float64, maxDegree+1)
	sum := 0.0
	for d := range cdf {
		sum += 1 / float64((d+1)*(d+1))
		cdf[d] = sum
	}
	stride := nodes * 618 / 1000
	rnd := rand.New(rand.NewPCG(5, 6))
	out := make([]*keyArena, 0, n)
	a := new(keyArena)
	for id1 := 1; len(out) < n; id1++ {
		d, _ := slices.BinarySearch(cdf, rnd.Float64()*sum)
		for k := 0; k < d && len(out) < n; k++ {
			a.add(append(a.buf, linkKey(1+k%2, id1, 1+(id1-1+(k+1)*stride)%nodes)...))
			if a.len() == per {
				out = append(out, a)
				a = new(keyArena)
			}
		}
	}
	return out
}
