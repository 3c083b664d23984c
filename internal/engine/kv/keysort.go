package kv

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
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
		common = commonPrefix(first[:common], a.key(i))
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

// commonPrefix is the length of x's and y's common prefix, found 8 bytes
// at a time.
func commonPrefix(x, y []byte) int {
	n := min(len(x), len(y))
	j := 0
	for ; j+8 <= n; j += 8 {
		if d := binary.LittleEndian.Uint64(x[j:]) ^ binary.LittleEndian.Uint64(y[j:]); d != 0 {
			return j + bits.TrailingZeros64(d)/8
		}
	}
	for j < n && x[j] == y[j] {
		j++
	}
	return j
}

// sortWords sorts ws by key, tmp (as long) as scratch. Batches are often
// nearly in order once grouped by their first differing byte (a LinkBench
// load batch: its links by type, each type's in id1 order with a node's
// few id2 scattered): a stable pass distributes them into buckets by that
// byte, and an insertion sort orders each bucket, which costs about one
// move per key on such a batch. A bucket whose insertion sort needs more
// than a few moves per key (a node with hundreds of links, their id2
// scattered) is sorted by radix instead.
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
		if b := ws[start:e]; len(b) > 1 && !insertionSortWords(a, b, 2*len(b)) {
			radixSortWords(a, b, tmp[start:e])
		}
		start = e
	}
}

// radixSortWords sorts ws by key, tmp (as long) as scratch: a stable
// counting pass per byte of the words that is not the same in every key,
// least significant first, then an insertion pass that orders the keys
// whose words are equal by their whole keys, run by run (a long run by
// comparisons).
func radixSortWords(a *keyArena, ws, tmp []keyWords) {
	var diff0, diff1 uint64
	for _, w := range ws {
		diff0 |= w.w0 ^ ws[0].w0
		diff1 |= w.w1 ^ ws[0].w1
	}
	src, dst := ws, tmp
	for shift := uint(0); shift < 128; shift += 8 {
		if byteAt(diff0, diff1, shift) == 0 {
			continue
		}
		var at [256]int32
		for i := range src {
			at[byteAt(src[i].w0, src[i].w1, shift)]++
		}
		n := int32(0)
		for b := range at {
			n, at[b] = n+at[b], n
		}
		for i := range src {
			b := byteAt(src[i].w0, src[i].w1, shift)
			dst[at[b]] = src[i]
			at[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &ws[0] {
		copy(ws, src)
	}
	for i := 0; i < len(ws); {
		j := i + 1
		for j < len(ws) && ws[j].w0 == ws[i].w0 && ws[j].w1 == ws[i].w1 {
			j++
		}
		if tie := ws[i:j]; len(tie) > 32 {
			slices.SortFunc(tie, func(x, y keyWords) int { return bytes.Compare(a.key(x.i), a.key(y.i)) })
		} else if len(tie) > 1 {
			insertionSortWords(a, tie, math.MaxInt)
		}
		i = j
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

// byteAt is the byte shift bits up the 128-bit integer w0:w1.
func byteAt(w0, w1 uint64, shift uint) byte {
	if shift >= 64 {
		return byte(w0 >> (shift - 64))
	}
	return byte(w1 >> shift)
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
