package ibench

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"testing"
)

// rowsDigest hashes every column but dateandtime of rows first..first+n-1.
func rowsDigest(g *RowGen, first int64, n, padMax int) string {
	h := sha256.New()
	b := NewBatch(100, padMax)
	var buf [8]byte
	for done := 0; done < n; done += 100 {
		for _, r := range g.Fill(b, first+int64(done), 100, 0) {
			for c := range r {
				if c == ColDateAndTime {
					continue
				}
				binary.LittleEndian.PutUint64(buf[:], uint64(r[c].Int))
				h.Write(buf[:])
				h.Write(r[c].Bytes)
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// TestRowsPinned pins generated rows to exact values: a row is a pure
// function of (seed, table, pk) and must stay the same across versions, so
// a faster generator cannot silently change the data every engine loads.
func TestRowsPinned(t *testing.T) {
	g := NewRowGen(1, 0, 10, 20, 50)
	b := NewBatch(1, 20)
	for _, want := range []struct {
		pk                             int64
		cash, product, customer, price int64
		data                           string
	}{
		{1, 625, 3176, 35783, 348, "Lomu1wPlFKKKKKKKKK"},
		{1000000, 56, 4467, 97208, 343, "-9Iz8yNhFnnnnnnnnnn"},
	} {
		r := g.Fill(b, want.pk, 1, 123)[0]
		if r[ColTransactionID].Int != want.pk || r[ColCashRegisterID].Int != want.cash || r[ColProductID].Int != want.product ||
			r[ColCustomerID].Int != want.customer || r[ColPrice].Int != want.price || string(r[ColData].Bytes) != want.data {
			t.Errorf("row %d = (%d, %d, %d, %d, %d, %q), want (%d, %d, %d, %d, %d, %q)", want.pk,
				r[ColTransactionID].Int, r[ColCashRegisterID].Int, r[ColProductID].Int, r[ColCustomerID].Int, r[ColPrice].Int, r[ColData].Bytes,
				want.pk, want.cash, want.product, want.customer, want.price, want.data)
		}
	}
	for _, c := range []struct {
		seed                       int64
		table, padMin, padMax, pct int
		want                       string
	}{
		{1, 0, 10, 20, 50, "d3677044b0c11848"},
		{42, 3, 10, 20, 50, "ca2f0636612713fc"},
		{7, 1, 0, 0, 50, "c2557e5f77ae4816"},
		{7, 1, 1, 300, 0, "724c759e03cfd8d4"},
		{7, 1, 1, 300, 100, "644b45e262b11e3b"},
		{9, 2, 100, 5000, 37, "4cbc5aec41eb7abf"},
	} {
		got := rowsDigest(NewRowGen(c.seed, c.table, c.padMin, c.padMax, c.pct), 1, 1000, c.padMax)
		if got != c.want {
			t.Errorf("rows 1..1000 of seed %d, table %d, pad %d..%d bytes at %d%% random: digest %s, want %s",
				c.seed, c.table, c.padMin, c.padMax, c.pct, got, c.want)
		}
	}
}
