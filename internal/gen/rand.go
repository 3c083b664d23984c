// Package gen holds cheap, deterministic data generation shared by workloads.
package gen

import (
	"encoding/binary"
	"math/bits"
)

// Rand is a PCG generator (128-bit LCG state, DXSM output) with helpers that
// never allocate. It is a value type so a generator can be embedded and
// reseeded per row. Its stream is math/rand/v2's PCG's, draw for draw (a test
// holds the two together), so data generated before it had its own copy of
// the step regenerates the same; the copy lets the helpers keep the state in
// registers across draws, which the standard type's methods do not inline
// well enough for (the insert benchmark draws 7 values a row).
type Rand struct {
	hi, lo uint64
}

// Seed resets the generator to the stream named by (a, b).
func (r *Rand) Seed(a, b uint64) { r.hi, r.lo = a, b }

// step advances the state (hi, lo) once and returns the new state and its
// output.
func step(hi, lo uint64) (nhi, nlo, out uint64) {
	const (
		mulHi    = 2549297995355413924
		mulLo    = 4865540595714422341
		incHi    = 6364136223846793005
		incLo    = 1442695040888963407
		cheapMul = 0xda942042e4dd58b5
	)
	// state = state*mul + inc (mod 2^128)
	nhi, nlo = bits.Mul64(lo, mulLo)
	nhi += hi*mulLo + lo*mulHi
	nlo, c := bits.Add64(nlo, incLo, 0)
	nhi, _ = bits.Add64(nhi, incHi, c)
	// DXSM: double xorshift multiply of the high half.
	out = nhi ^ nhi>>32
	out *= cheapMul
	out ^= out >> 48
	out *= nlo | 1
	return nhi, nlo, out
}

// Uint64 returns 64 random bits.
func (r *Rand) Uint64() uint64 {
	var x uint64
	r.hi, r.lo, x = step(r.hi, r.lo)
	return x
}

// IntN returns a value in [0, n) by multiply-high reduction (Lemire); its bias
// is below n/2^64, negligible for benchmark data. n must be > 0.
func (r *Rand) IntN(n int64) int64 {
	hi, _ := bits.Mul64(r.Uint64(), uint64(n))
	return int64(hi)
}

// IntNs sets dst[i] to IntN(bounds[i]) for each i in order: the same values
// as that many IntN calls, with the state in registers between draws.
// bounds must be as long as dst.
func (r *Rand) IntNs(dst, bounds []int64) {
	hi, lo := r.hi, r.lo
	bounds = bounds[:len(dst)]
	for i := range dst {
		var x uint64
		hi, lo, x = step(hi, lo)
		v, _ := bits.Mul64(x, uint64(bounds[i]))
		dst[i] = int64(v)
	}
	r.hi, r.lo = hi, lo
}

// Float64 returns a value in [0, 1).
func (r *Rand) Float64() float64 {
	return float64(r.Uint64()>>11) / (1 << 53)
}

// Mix combines seed parts into one well-spread 64-bit value (splitmix64
// finaliser), so nearby inputs give unrelated streams.
func Mix(parts ...uint64) uint64 {
	var h uint64 = 0x9e3779b97f4a7c15
	for _, p := range parts {
		h ^= p + 0x9e3779b97f4a7c15 + (h << 6) + (h >> 2)
		h = splitmix(h)
	}
	return h
}

func splitmix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// padAlphabet has 64 printable characters so 6 random bits pick one; text
// stays valid in every SQL engine's varchar.
const padAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"

// Pad writes n bytes into dst (reusing its storage) with the first randomPct
// percent random characters and the rest one repeated character, so the
// value compresses roughly 2x at 50%. It returns the filled slice. Each
// 64-bit draw gives 10 characters (6 bits each), the last draw only as many
// as are left; one more draw picks the repeated character.
func (r *Rand) Pad(dst []byte, n, randomPct int) []byte {
	if cap(dst) < n {
		dst = make([]byte, n)
	}
	dst = dst[:n]
	nr := int(uint(n*randomPct) / 100) // unsigned: a shorter division
	// Ten characters a draw, unrolled on a sub-slice so the stores carry no
	// bounds checks: at the insert benchmark's 10-20 byte pads this and the
	// fill below are most of a row's cost. The last draw too writes all ten
	// where the pad has room, those past nr overwritten by the fill below:
	// cheaper than stopping at nr.
	hi, lo := r.hi, r.lo
	var x uint64
	for i := 0; i < nr; i += 10 {
		hi, lo, x = step(hi, lo)
		if i+10 > n {
			for k := range dst[i:nr] {
				dst[i+k] = padAlphabet[x&63]
				x >>= 6
			}
			break
		}
		c := dst[i : i+10 : i+10]
		c[0] = padAlphabet[x&63]
		c[1] = padAlphabet[(x>>6)&63]
		c[2] = padAlphabet[(x>>12)&63]
		c[3] = padAlphabet[(x>>18)&63]
		c[4] = padAlphabet[(x>>24)&63]
		c[5] = padAlphabet[(x>>30)&63]
		c[6] = padAlphabet[(x>>36)&63]
		c[7] = padAlphabet[(x>>42)&63]
		c[8] = padAlphabet[(x>>48)&63]
		c[9] = padAlphabet[(x>>54)&63]
	}
	r.hi, r.lo, x = step(hi, lo)
	fill := padAlphabet[x&63]
	// The common short tails without a call: two overlapping stores.
	switch tail := dst[nr:]; {
	case len(tail) >= 8 && len(tail) <= 16:
		w := uint64(fill) * 0x0101010101010101
		binary.LittleEndian.PutUint64(tail, w)
		binary.LittleEndian.PutUint64(tail[len(tail)-8:], w)
	case len(tail) >= 4 && len(tail) < 8:
		w := uint32(fill) * 0x01010101
		binary.LittleEndian.PutUint32(tail, w)
		binary.LittleEndian.PutUint32(tail[len(tail)-4:], w)
	default:
		fillRepeat(tail, fill)
	}
	return dst
}

// fillRepeat sets every byte of tail to c: short tails by (overlapping)
// 8-byte stores, long ones by doubling copies; a memmove call per doubling
// costs more than a short tail's bytes.
func fillRepeat(tail []byte, c byte) {
	switch n := len(tail); {
	case n > 64:
		tail[0] = c
		for done := 1; done < n; {
			done += copy(tail[done:], tail[:done])
		}
	case n >= 8:
		w := uint64(c) * 0x0101010101010101
		last := tail[n-8:]
		for len(tail) > 8 {
			binary.LittleEndian.PutUint64(tail, w)
			tail = tail[8:]
		}
		binary.LittleEndian.PutUint64(last, w)
	case n >= 4:
		w := uint32(c) * 0x01010101
		binary.LittleEndian.PutUint32(tail, w)
		binary.LittleEndian.PutUint32(tail[n-4:], w)
	default:
		for k := range tail {
			tail[k] = c
		}
	}
}
