package hotrow

import "testing"

// TestPickInRangeNoAlloc: every distribution picks a PK in [1, rows] and the
// hot path allocates nothing.
func TestPickInRangeNoAlloc(t *testing.T) {
	for _, dist := range []string{"hot", "uniform", "zipf:0.99"} {
		c := DefaultConfig()
		c.Rows, c.HotRows, c.Distribution, c.Tables = 1000, 3, dist, []int{1, 2}
		b, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		cl := &client{b: b, tables: b.tables}
		seen := map[int64]bool{}
		for i := 0; i < 20000; i++ {
			_, pk := cl.pick()
			if pk < 1 || pk > c.Rows {
				t.Fatalf("%s: pk %d outside [1,%d]", dist, pk, c.Rows)
			}
			seen[pk] = true
		}
		if dist == "hot" && len(seen) != 6 {
			t.Fatalf("hot: %d distinct rows over 2 tables of 3 hot rows", len(seen))
		}
		if dist != "hot" && len(seen) < 500 {
			t.Fatalf("%s: only %d distinct rows", dist, len(seen))
		}
		if n := testing.AllocsPerRun(1000, func() { cl.pick() }); n != 0 {
			t.Fatalf("%s: pick allocates %v times", dist, n)
		}
	}
}

// TestZipfScatterIsPermutation: the rank-to-PK map hits every PK once.
func TestZipfScatterIsPermutation(t *testing.T) {
	for _, n := range []uint64{1, 2, 3, 10, 97, 1000, 4096} {
		s := coprimeStride(n)
		seen := make([]bool, n)
		for r := uint64(0); r < n; r++ {
			seen[(r*s+7)%n] = true
		}
		for i, ok := range seen {
			if !ok {
				t.Fatalf("n=%d stride %d: position %d never hit", n, s, i)
			}
		}
	}
}
