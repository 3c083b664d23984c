package kv

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSortHashesBothWays(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 5, radixMin - 1, radixMin, 1000, 5000} {
		for _, skew := range []bool{false, true} {
			hs := make([]uint64, n)
			for i := range hs {
				hs[i] = rnd.Uint64()
				if skew { // every hash in one bucket
					hs[i] = 0x42<<56 | hs[i]>>8
				}
				if i > 0 && rnd.IntN(5) == 0 {
					hs[i] = hs[rnd.IntN(i)] // a repeat
				}
			}
			want := slices.Compact(slices.Sorted(slices.Values(hs)))
			if got := sortHashes(slices.Clone(hs)); !slices.Equal(got, want) {
				t.Fatalf("%d hashes (skewed %v): sortHashes differs from a sort and compact", n, skew)
			}
		}
	}
}

// BenchmarkSortHashes compares the bucket sort (sortByTopBits) with slices.Sort at the set
// sizes of an insert batch's locks, to place radixMin.
func BenchmarkSortHashes(b *testing.B) {
	for _, n := range []int{64, 128, 256, 1000, 3000} {
		rnd := rand.New(rand.NewPCG(1, 2))
		src := make([]uint64, n)
		for i := range src {
			src[i] = rnd.Uint64()
		}
		hs := make([]uint64, n)
		for _, way := range []struct {
			name string
			sort func([]uint64)
		}{{"slices", slices.Sort[[]uint64]}, {"topbits", sortByTopBits}} {
			b.Run(fmt.Sprintf("%s-%04d", way.name, n), func(b *testing.B) {
				for b.Loop() {
					copy(hs, src)
					way.sort(hs)
				}
			})
		}
	}
}
