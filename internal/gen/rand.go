// Package gen holds cheap, deterministic data generation shared by workloads.
package gen

import (
	"math/bits"
	"math/rand/v2"
)

// Rand is a small PCG-based generator with helpers that never allocate.
// It is a value type so a generator can be embedded and reseeded per row.
type Rand struct {
	pcg rand.PCG
}

// Seed resets the generator to the stream named by (a, b).
func (r *Rand) Seed(a, b uint64) { r.pcg.Seed(a, b) }

// Uint64 returns 64 random bits.
func (r *Rand) Uint64() uint64 { return r.pcg.Uint64() }

// IntN returns a value in [0, n) by multiply-high reduction (Lemire); its bias
// is below n/2^64, negligible for benchmark data. n must be > 0.
func (r *Rand) IntN(n int64) int64 {
	hi, _ := bits.Mul64(r.pcg.Uint64(), uint64(n))
	return int64(hi)
}

// Float64 returns a value in [0, 1).
func (r *Rand) Float64() float64 {
	return float64(r.pcg.Uint64()>>11) / (1 << 53)
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
// value compresses roughly 2x at 50%. It returns the filled slice.
func (r *Rand) Pad(dst []byte, n, randomPct int) []byte {
	if cap(dst) < n {
		dst = make([]byte, n)
	}
	dst = dst[:n]
	nr := n * randomPct / 100
	i := 0
	for i < nr {
		x := r.pcg.Uint64()
		for k := 0; k < 10 && i < nr; k++ {
			dst[i] = padAlphabet[x&63]
			x >>= 6
			i++
		}
	}
	fill := padAlphabet[r.pcg.Uint64()&63]
	if i < n {
		// The repeated character by doubling copies, not byte by byte.
		dst[i] = fill
		for done := i + 1; done < n; {
			done += copy(dst[done:], dst[i:done])
		}
	}
	return dst
}
