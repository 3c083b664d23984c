package ibench

import (
	"bytes"
	"testing"
)

func TestRowsDeterministic(t *testing.T) {
	a := NewRowGen(42, 0, 10, 20, 50)
	b := NewRowGen(42, 0, 10, 20, 50)
	other := NewRowGen(42, 1, 10, 20, 50)
	ba, bb, bo := NewBatch(100, 20), NewBatch(100, 20), NewBatch(100, 20)
	ra := a.Fill(ba, 1, 100, 1000)
	rb := b.Fill(bb, 1, 100, 2000) // different wall clock
	ro := other.Fill(bo, 1, 100, 1000)
	same := 0
	for i := range ra {
		for c := range ra[i] {
			if c == ColDateAndTime {
				continue
			}
			if ra[i][c].Int != rb[i][c].Int || !bytes.Equal(ra[i][c].Bytes, rb[i][c].Bytes) {
				t.Fatalf("row %d column %d differs between two generators with the same seed", i, c)
			}
		}
		if ra[i][ColCustomerID].Int == ro[i][ColCustomerID].Int {
			same++
		}
	}
	if same > 5 {
		t.Fatalf("tables 0 and 1 share %d of 100 customer ids: streams are not independent", same)
	}
	// A row is a function of its PK alone: regenerating row 57 on its own
	// gives the same bytes as in the batch.
	one := NewBatch(1, 20)
	r := a.Fill(one, 57, 1, 1000)[0]
	if r[ColProductID].Int != ra[56][ColProductID].Int || !bytes.Equal(r[ColData].Bytes, ra[56][ColData].Bytes) {
		t.Fatal("row 57 regenerated alone differs from the batch")
	}
}

func TestRowDomains(t *testing.T) {
	g := NewRowGen(7, 3, 10, 20, 50)
	b := NewBatch(1000, 20)
	rows := g.Fill(b, 1, 1000, 99)
	for i, r := range rows {
		if r[ColTransactionID].Int != int64(i+1) {
			t.Fatalf("pk %d at %d", r[ColTransactionID].Int, i)
		}
		check := func(col int, n int64) {
			if v := r[col].Int; v < 0 || v >= n {
				t.Fatalf("column %d value %d outside [0,%d)", col, v, n)
			}
		}
		check(ColCashRegisterID, CashRegisters)
		check(ColProductID, Products)
		check(ColCustomerID, Customers)
		check(ColPrice, Prices)
		n := len(r[ColData].Bytes)
		if n < 10 || n > 20 {
			t.Fatalf("pad length %d outside [10,20]", n)
		}
		// The non-random tail repeats one character.
		tail := r[ColData].Bytes[n*50/100:]
		for _, c := range tail {
			if c != tail[0] {
				t.Fatalf("pad tail %q is not one repeated character", tail)
			}
		}
	}
}

func TestLargePads(t *testing.T) {
	for _, size := range []int{256, 10 << 10, 1 << 20} {
		g := NewRowGen(1, 0, size, size, 50)
		b := NewBatch(2, size)
		rows := g.Fill(b, 1, 2, 0)
		if len(rows[1][ColData].Bytes) != size {
			t.Fatalf("pad %d: got %d bytes", size, len(rows[1][ColData].Bytes))
		}
	}
}

func TestFillAllocatesNothing(t *testing.T) {
	g := NewRowGen(1, 0, 10, 20, 50)
	b := NewBatch(100, 20)
	pk := int64(1)
	if n := testing.AllocsPerRun(100, func() { g.Fill(b, pk, 100, 5); pk += 100 }); n != 0 {
		t.Fatalf("Fill allocates %v per batch", n)
	}
}

// BenchmarkGenerateRow reports the cost of generating one row (b.N rows).
func BenchmarkGenerateRow(b *testing.B) {
	g := NewRowGen(1, 0, 10, 20, 50)
	batch := NewBatch(100, 20)
	b.ReportAllocs()
	pk := int64(1)
	for i := 0; i < b.N; i += 100 {
		g.Fill(batch, pk, 100, 5)
		pk += 100
	}
}
