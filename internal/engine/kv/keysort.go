package kv

import (
	"bytes"
	"encoding/binary"
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
	scratch = scratch[:0]
	for _, i := range idx {
		k := a.key(i)[common:]
		w := keyWords{w0: word(k), i: i}
		if len(k) > 8 {
			w.w1 = word(k[8:])
		}
		scratch = append(scratch, w)
	}
	slices.SortFunc(scratch, func(x, y keyWords) int {
		switch {
		case x.w0 != y.w0:
			return cmpUint(x.w0, y.w0)
		case x.w1 != y.w1:
			return cmpUint(x.w1, y.w1)
		}
		// The same 16 bytes, or keys that end within them (zero-padded):
		// the whole keys decide.
		return bytes.Compare(a.key(x.i), a.key(y.i))
	})
	for j, w := range scratch {
		idx[j] = w.i
	}
	return scratch
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
