package keyenc

import (
	"bytes"
	"math"
	"math/rand"
	"sort"
	"testing"
)

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func sign(c int) int {
	switch {
	case c < 0:
		return -1
	case c > 0:
		return 1
	}
	return 0
}

func TestIntOrder(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	vals := []int64{math.MinInt64, math.MinInt64 + 1, -1 << 32, -256, -255, -1, 0, 1, 255, 256, 1 << 32, math.MaxInt64 - 1, math.MaxInt64}
	for i := 0; i < 2000; i++ {
		v := r.Int63()
		if r.Intn(2) == 0 {
			v = -v
		}
		if r.Intn(4) == 0 {
			v >>= uint(r.Intn(63))
		}
		vals = append(vals, v)
	}
	for i := range vals {
		for j := range vals {
			a, b := vals[i], vals[j]
			ea, eb := AppendInt(nil, a), AppendInt(nil, b)
			if got, want := sign(bytes.Compare(ea, eb)), cmpInt(a, b); got != want {
				t.Fatalf("order of %d vs %d: bytes %d, values %d", a, b, got, want)
			}
		}
		got, rest, err := DecodeInt(AppendInt([]byte{}, vals[i]))
		if err != nil || got != vals[i] || len(rest) != 0 {
			t.Fatalf("DecodeInt(%d) = %d, rest %d, %v", vals[i], got, len(rest), err)
		}
	}
	if got := AppendTime(nil, -5); !bytes.Equal(got, AppendInt(nil, -5)) {
		t.Fatalf("AppendTime differs from AppendInt")
	}
}

func TestIntShort(t *testing.T) {
	if _, _, err := DecodeInt([]byte{1, 2, 3}); err == nil {
		t.Fatal("DecodeInt of 3 bytes: want error")
	}
}

func randString(r *rand.Rand) []byte {
	// A small alphabet including 0x00, 0x01 and 0xFF makes prefixes, ties and
	// escapes frequent.
	alphabet := []byte{0x00, 0x01, 0x02, 'a', 'b', 0xFE, 0xFF}
	b := make([]byte, r.Intn(6))
	for i := range b {
		b[i] = alphabet[r.Intn(len(alphabet))]
	}
	return b
}

func TestStringOrderAndRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	vals := [][]byte{{}, {0}, {0, 0}, {0, 1}, {0, 0xFF}, {1}, {0xFF}, {0xFF, 0}, {0xFF, 0xFF}, []byte("a"), []byte("ab"), []byte("a\x00"), []byte("a\x00b"), []byte("a\xff")}
	for i := 0; i < 400; i++ {
		vals = append(vals, randString(r))
	}
	var buf []byte
	for _, a := range vals {
		ea := AppendString(nil, a)
		if len(ea) != EncodedStringLen(a) {
			t.Fatalf("EncodedStringLen(%q) = %d, encoded %d", a, EncodedStringLen(a), len(ea))
		}
		for _, b := range vals {
			eb := AppendString(nil, b)
			if got, want := sign(bytes.Compare(ea, eb)), bytes.Compare(a, b); got != want {
				t.Fatalf("order of %q vs %q: encoded %d, raw %d", a, b, got, want)
			}
		}
		tail := []byte{7, 7}
		enc := append(AppendString(nil, a), tail...)
		var val, rest []byte
		var err error
		val, rest, buf, err = DecodeString(buf[:0], enc)
		if err != nil || !bytes.Equal(val, a) || !bytes.Equal(rest, tail) {
			t.Fatalf("DecodeString(%q) = %q, rest %v, %v", a, val, rest, err)
		}
		rest, err = SkipString(enc)
		if err != nil || !bytes.Equal(rest, tail) {
			t.Fatalf("SkipString(%q): rest %v, %v", a, rest, err)
		}
	}
}

func TestDecodeStringAliasesWithoutEscapes(t *testing.T) {
	enc := AppendString(nil, []byte("hello"))
	val, _, buf, err := DecodeString(nil, enc)
	if err != nil || buf != nil || &val[0] != &enc[0] {
		t.Fatalf("want an alias of the input and an untouched buffer, got %q, buf %v, %v", val, buf, err)
	}
}

func TestDecodeStringBad(t *testing.T) {
	for _, in := range [][]byte{nil, {'a'}, {'a', 0}, {'a', 0, 0x05}, {0, 0xFF, 'a'}} {
		if _, _, _, err := DecodeString(nil, in); err == nil {
			t.Errorf("DecodeString(%v): want error", in)
		}
		if _, err := SkipString(in); err == nil {
			t.Errorf("SkipString(%v): want error", in)
		}
	}
}

type tuple struct {
	s []byte
	n int64
	m int64
}

func encodeTuple(dst []byte, tp tuple) []byte {
	dst = AppendString(dst, tp.s)
	dst = AppendInt(dst, tp.n)
	return AppendTime(dst, tp.m)
}

func cmpTuple(a, b tuple) int {
	if c := bytes.Compare(a.s, b.s); c != 0 {
		return c
	}
	if c := cmpInt(a.n, b.n); c != 0 {
		return c
	}
	return cmpInt(a.m, b.m)
}

func TestTupleOrder(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	ints := []int64{math.MinInt64, -1, 0, 1, math.MaxInt64}
	var tuples []tuple
	for i := 0; i < 600; i++ {
		tuples = append(tuples, tuple{randString(r), ints[r.Intn(len(ints))], ints[r.Intn(len(ints))]})
	}
	// The case the terminator exists for: "a" followed by the largest int must
	// still sort before "a\x00" and "ab" followed by the smallest.
	tuples = append(tuples,
		tuple{[]byte("a"), math.MaxInt64, math.MaxInt64},
		tuple{[]byte("a\x00"), math.MinInt64, math.MinInt64},
		tuple{[]byte("ab"), math.MinInt64, math.MinInt64},
		tuple{[]byte("a"), math.MaxInt64, math.MaxInt64})
	enc := make([][]byte, len(tuples))
	for i, tp := range tuples {
		enc[i] = encodeTuple(nil, tp)
	}
	for i := range tuples {
		for j := range tuples {
			if got, want := sign(bytes.Compare(enc[i], enc[j])), cmpTuple(tuples[i], tuples[j]); got != want {
				t.Fatalf("order of %+v vs %+v: encoded %d, tuples %d", tuples[i], tuples[j], got, want)
			}
		}
	}
	// Sorting by encoding must sort the tuples, and decoding gives them back.
	idx := make([]int, len(tuples))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return bytes.Compare(enc[idx[a]], enc[idx[b]]) < 0 })
	for k := 1; k < len(idx); k++ {
		if cmpTuple(tuples[idx[k-1]], tuples[idx[k]]) > 0 {
			t.Fatalf("sorted by encoding but %+v > %+v", tuples[idx[k-1]], tuples[idx[k]])
		}
	}
	for i, e := range enc {
		s, rest, _, err := DecodeString(nil, e)
		if err != nil {
			t.Fatal(err)
		}
		n, rest, err := DecodeInt(rest)
		if err != nil {
			t.Fatal(err)
		}
		m, rest, err := DecodeInt(rest)
		if err != nil || len(rest) != 0 {
			t.Fatalf("decode: rest %d, %v", len(rest), err)
		}
		if got := (tuple{s, n, m}); cmpTuple(got, tuples[i]) != 0 {
			t.Fatalf("round trip %+v gave %+v", tuples[i], got)
		}
	}
}

func TestPrefixOfTupleSortsFirst(t *testing.T) {
	// A key prefix (fewer columns) sorts at or before every key that extends
	// it: this is what lets a scan seek to a partial tuple.
	full := encodeTuple(nil, tuple{[]byte("k"), math.MinInt64, math.MinInt64})
	prefix := AppendString(nil, []byte("k"))
	if bytes.Compare(prefix, full) >= 0 || !bytes.HasPrefix(full, prefix) {
		t.Fatalf("prefix %x does not sort before %x", prefix, full)
	}
	end, ok := PrefixEnd(nil, prefix)
	if !ok || bytes.Compare(full, end) >= 0 {
		t.Fatalf("PrefixEnd %x is not above %x", end, full)
	}
	next := encodeTuple(nil, tuple{[]byte("k\x00"), math.MinInt64, math.MinInt64})
	if bytes.Compare(end, next) > 0 {
		t.Fatalf("PrefixEnd %x is above the next string's key %x", end, next)
	}
}

func TestPrefixEnd(t *testing.T) {
	cases := []struct {
		in, want []byte
		ok       bool
	}{
		{[]byte{1, 2, 3}, []byte{1, 2, 4}, true},
		{[]byte{1, 0xFF, 0xFF}, []byte{2}, true},
		{[]byte{0xFF}, nil, false},
		{nil, nil, false},
	}
	for _, c := range cases {
		got, ok := PrefixEnd(nil, c.in)
		if ok != c.ok || !bytes.Equal(got, c.want) {
			t.Errorf("PrefixEnd(%x) = %x, %v; want %x, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestAppendAllocatesNothing(t *testing.T) {
	buf := make([]byte, 0, 256)
	s := []byte("abc\x00def")
	allocs := testing.AllocsPerRun(100, func() {
		b := AppendInt(buf[:0], -42)
		b = AppendString(b, s)
		b = AppendTime(b, 1700000000)
		_, rest, _ := DecodeInt(b)
		_, rest, buf2, _ := DecodeString(buf[128:128], rest)
		_ = buf2
		_, _, _ = DecodeInt(rest)
	})
	if allocs != 0 {
		t.Fatalf("allocs per run = %v, want 0", allocs)
	}
}
