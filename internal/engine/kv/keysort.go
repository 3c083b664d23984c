package kv

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
)

// keyWords is a key of an arena by its index, with the 16 bytes after the
// batch's common prefix as two integers: comparisons of a batch's keys
// (which share the keyspace prefix and often leading columns) end on them
// almost always, without reading the keys.
type keyWords struct {
	w0, w1 uint64
	i      int
}

// sortKeys sorts idx, indexes of a's keys, into key order, as a
// bytes.Compare sort would; scratch is reused storage, returned for the
// next call.
func sortKeys(a *keyArena, scratch []keyWords, idx []int) []keyWords {
	if len(idx) < 2 {
		return scratch
	}
	first := a.key(idx[0])
	common := len(first)
	for _, i := range idx[1:] {
		k := a.key(i)
		n := min(common, len(k))
		common = 0
		for common < n && k[common] == first[common] {
			common++
		}
	}
	// The words, then room for the bucket pass's copy.
	scratch = slices.Grow(scratch[:0], 2*len(idx))
	for _, i := range idx {
		k := a.key(i)[common:]
		w := keyWords{w0: word(k), i: i}
		if len(k) > 8 {
			w.w1 = word(k[8:])
		}
		scratch = append(scratch, w)
	}
	sortWords(a, scratch, scratch[len(idx):2*len(idx)])
	for j, w := range scratch {
		idx[j] = w.i
	}
	return scratch
}

// sortWords sorts ws by key, tmp (as long) as scratch. Batches are often
// nearly in order once grouped by their first differing byte (a LinkBench
// load batch: its links by type, each type's in id1 order with a node's
// few id2 scattered): a stable pass distributes them into buckets by that
// byte, and an insertion sort orders each bucket, which costs about one
// move per key on such a batch. A bucket whose insertion sort needs more
// than a few moves per key is sorted by comparisons instead.
func sortWords(a *keyArena, ws, tmp []keyWords) {
	if len(ws) <= 32 {
		insertionSortWords(a, ws, math.MaxInt)
		return
	}
	var end [256]int32 // bucket b ends at end[b]
	for _, w := range ws {
		end[w.w0>>56]++
	}
	at := int32(0)
	for b := range end {
		at, end[b] = at+end[b], at // end[b] is the bucket's start for now
	}
	for _, w := range ws {
		b := w.w0 >> 56
		tmp[end[b]] = w
		end[b]++
	}
	copy(ws, tmp)
	start := int32(0)
	for _, e := range end {
		if b := ws[start:e]; len(b) > 1 && !insertionSortWords(a, b, 4*len(b)) {
			slices.SortFunc(b, func(x, y keyWords) int { return compareWords(a, x, y) })
		}
		start = e
	}
}

// insertionSortWords sorts ws by insertion unless that takes more than
// budget moves; it reports whether it did (else ws is a permutation of
// what it was).
func insertionSortWords(a *keyArena, ws []keyWords, budget int) bool {
	moves := 0
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		j := i
		for ; j > 0 && compareWords(a, w, ws[j-1]) < 0; j-- {
			ws[j] = ws[j-1]
		}
		ws[j] = w
		if moves += i - j; moves > budget {
			return false
		}
	}
	return true
}

// compareWords orders x and y as bytes.Compare orders their keys.
func compareWords(a *keyArena, x, y keyWords) int {
	switch {
	case x.w0 != y.w0:
		return cmpUint(x.w0, y.w0)
	case x.w1 != y.w1:
		return cmpUint(x.w1, y.w1)
	}
	// The same 16 bytes, or keys that end within them (zero-padded): the
	// whole keys decide.
	return bytes.Compare(a.key(x.i), a.key(y.i))
}

func cmpUint(x, y uint64) int {
	if x < y {
		return -1
	}
	return 1
}

// word is b's first 8 bytes as a big-endian integer, zero-padded: it
// orders as the bytes do wherever two words differ.
func word(b []byte) uint64 {
	if len(b) >= 8 {
		return binary.BigEndian.Uint64(b)
	}
	var p [8]byte
	copy(p[:], b)
	return binary.BigEndian.Uint64(p[:])
}
