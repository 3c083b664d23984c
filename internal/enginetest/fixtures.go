package enginetest

import (
	"context"
	"testing"

	"rumbench/internal/model"
)

// Column positions of the ibench-like table.
const (
	cID = iota
	cTime
	cRegister
	cProduct
	cCustomer
	cPrice
	cData
)

// TableConn creates the ibench table pi1 in db and opens a connection,
// closed when the test ends: the start of most single-engine tests.
func TableConn(t testing.TB, db model.DB) (*model.Table, model.Conn) {
	t.Helper()
	ctx := context.Background()
	tbl := IbenchTable("pi1")
	if err := db.CreateTable(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return tbl, c
}

// IbenchTable is the design §4.1 table with its three secondary indexes.
func IbenchTable(name string) *model.Table {
	return &model.Table{
		Name: name,
		Columns: []model.Column{
			{Name: "transactionid", Type: model.Int},
			{Name: "dateandtime", Type: model.Time},
			{Name: "cashregisterid", Type: model.Int},
			{Name: "productid", Type: model.Int},
			{Name: "customerid", Type: model.Int},
			{Name: "price", Type: model.Int},
			{Name: "data", Type: model.String, MaxLen: 4000},
		},
		PK: []int{cID},
		Indexes: []model.Index{
			{Name: "marketsegment", Columns: []int{cProduct, cCustomer, cPrice}},
			{Name: "registersegment", Columns: []int{cRegister, cCustomer, cPrice}},
			{Name: "pdc", Columns: []int{cPrice, cTime, cCustomer}},
		},
	}
}

// StringTable has a string in the index and in the PK, to exercise escaping
// and prefix order in keys.
func StringTable(name string) *model.Table {
	return &model.Table{
		Name: name,
		Columns: []model.Column{
			{Name: "grp", Type: model.String, MaxLen: 16}, // a key length MySQL can index
			{Name: "id", Type: model.Int},
			{Name: "name", Type: model.String, MaxLen: 16},
			{Name: "n", Type: model.Int},
		},
		PK:      []int{0, 1},
		Indexes: []model.Index{{Name: "byname", Columns: []int{2, 3}}},
	}
}

func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// IbenchRow fills row (7 columns) for transaction id pk, deterministically.
// Values include negatives and data bytes 0x00 and 0xFF.
func IbenchRow(row model.Row, pk int64) model.Row {
	h := mix(uint64(pk))
	row = append(row[:0], make(model.Row, 7)...)
	row[cID].Int = pk
	row[cTime].Int = 1700000000 + pk/100
	row[cRegister].Int = int64(h % 20)
	row[cProduct].Int = int64(h>>8%30) - 10
	row[cCustomer].Int = int64(h >> 16 % 50)
	row[cPrice].Int = int64(h >> 24 % 40)
	n := int(h >> 32 % 12)
	data := make([]byte, n)
	for i := range data {
		data[i] = []byte{0, 'x', 0xFF, 'y'}[(h>>uint(i*2))&3]
	}
	row[cData].Bytes = data
	return row
}

var strAlphabet = [][]byte{{}, {0}, {0, 0}, {0, 1}, {0xFF}, []byte("a"), []byte("a\x00"), []byte("a\x00b"), []byte("ab"), []byte("a\xff"), []byte("b")}

func stringRow(i int64) model.Row {
	h := mix(uint64(i) + 77)
	return model.Row{
		{Bytes: strAlphabet[h%uint64(len(strAlphabet))]},
		{Int: int64(h>>8%7) - 3},
		{Bytes: strAlphabet[h>>16%uint64(len(strAlphabet))]},
		{Int: int64(h>>24%5) - 2},
	}
}
