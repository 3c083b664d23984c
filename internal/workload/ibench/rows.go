package ibench

import (
	"sync/atomic"

	"rumbench/internal/gen"
	"rumbench/internal/model"
)

// RowGen produces insert benchmark rows. Every column but dateandtime is a
// pure function of (seed, table, transactionid), so any row of any run can be
// recomputed, and generation allocates nothing once a Batch is sized.
type RowGen struct {
	seed         uint64
	table        uint64
	padMin       int
	padMax       int
	padRandomPct int
	rnd          gen.Rand
	// bounds are the ranges of a row's draws in order: cashregisterid,
	// productid, customerid, price and, when pads vary, the pad length;
	// draws is how many of them a row takes.
	bounds [5]int64
	draws  int
	// filledBytes sums LogicalRowBytes over every row Fill produced: the
	// logical bytes inserted, read by steps for write amplification.
	filledBytes atomic.Int64
}

// NewRowGen returns the generator for table number table (0-based).
func NewRowGen(seed int64, table, padMin, padMax, padRandomPct int) *RowGen {
	g := &RowGen{
		seed:         uint64(seed),
		table:        gen.Mix(uint64(seed), uint64(table), 0x1b) ^ uint64(table),
		padMin:       padMin,
		padMax:       padMax,
		padRandomPct: padRandomPct,
		bounds:       [5]int64{CashRegisters, Products, Customers, Prices, int64(padMax - padMin + 1)},
		draws:        4,
	}
	if padMax > padMin {
		g.draws = 5
	}
	return g
}

// Batch is reusable storage for a batch of rows.
type Batch struct {
	Rows []model.Row
	vals []model.Value
}

// NewBatch allocates storage for up to n rows with pads up to padMax bytes.
func NewBatch(n, padMax int) *Batch {
	b := &Batch{Rows: make([]model.Row, n), vals: make([]model.Value, n*numCols)}
	for i := range b.Rows {
		b.Rows[i] = b.vals[i*numCols : (i+1)*numCols : (i+1)*numCols]
		b.Rows[i][ColData].Bytes = make([]byte, 0, padMax)
	}
	return b
}

// Fill writes n rows with transaction ids firstPK, firstPK+1, ... and
// dateandtime now (one value per batch, as in the original benchmark) and
// returns them. n must not exceed the batch's capacity.
func (g *RowGen) Fill(b *Batch, firstPK int64, n int, now int64) []model.Row {
	rows := b.Rows[:n]
	var bytes int64
	for i := range rows {
		g.Row(rows[i], firstPK+int64(i), now)
		bytes += LogicalRowBytes(rows[i])
	}
	g.filledBytes.Add(bytes)
	return rows
}

// FilledLogicalBytes is the logical bytes of all rows Fill has produced.
func (g *RowGen) FilledLogicalBytes() int64 { return g.filledBytes.Load() }

// Row fills one row for primary key pk.
func (g *RowGen) Row(r model.Row, pk, now int64) {
	g.rnd.Seed(g.table, uint64(pk))
	// One IntNs call draws what IntN calls in this order would, with the
	// generator's state kept in registers.
	var v [5]int64
	g.rnd.IntNs(v[:g.draws], g.bounds[:g.draws])
	_ = r[numCols-1] // one bounds check for the seven stores below
	r[ColTransactionID].Int = pk
	r[ColDateAndTime].Int = now
	r[ColCashRegisterID].Int = v[0]
	r[ColProductID].Int = v[1]
	r[ColCustomerID].Int = v[2]
	r[ColPrice].Int = v[3]
	n := g.padMin + int(v[4]) // v[4] stays 0 when the pad length is fixed
	r[ColData].Bytes = g.rnd.Pad(r[ColData].Bytes, n, g.padRandomPct)
}

// LogicalRowBytes is the logical size of a row, the denominator of write and
// space amplification: 8 bytes per integer or time column plus the pad.
func LogicalRowBytes(r model.Row) int64 {
	return int64(8*(numCols-1) + len(r[ColData].Bytes))
}
