package ibench

import (
	"fmt"
	"strings"

	"rumbench/internal/model"
)

// Column positions of the insert benchmark table (design §4.1).
const (
	ColTransactionID = iota
	ColDateAndTime
	ColCashRegisterID
	ColProductID
	ColCustomerID
	ColPrice
	ColData
	numCols
)

// Value domains of the generated columns (design §4.1).
const (
	CashRegisters = 1000
	Products      = 10000
	Customers     = 100000
	Prices        = 500
)

// MaxIndexes is the number of secondary indexes the benchmark defines.
const MaxIndexes = 3

// TableName returns the name of client c's table (0-based c): pi1, pi2, ...
func TableName(c int) string { return fmt.Sprintf("pi%d", c+1) }

// Table returns the schema of one insert benchmark table with the first k
// secondary indexes declared (they are built by step l.x).
func Table(name string, k, padMax int) *model.Table {
	maxLen := padMax
	if maxLen < 1 {
		maxLen = 1
	}
	t := &model.Table{
		Name: name,
		Columns: []model.Column{
			ColTransactionID:  {Name: "transactionid", Type: model.Int},
			ColDateAndTime:    {Name: "dateandtime", Type: model.Time},
			ColCashRegisterID: {Name: "cashregisterid", Type: model.Int},
			ColProductID:      {Name: "productid", Type: model.Int},
			ColCustomerID:     {Name: "customerid", Type: model.Int},
			ColPrice:          {Name: "price", Type: model.Int},
			ColData:           {Name: "data", Type: model.String, MaxLen: maxLen},
		},
		PK: []int{ColTransactionID},
	}
	all := []model.Index{
		{Name: "marketsegment", Columns: []int{ColProductID, ColCustomerID, ColPrice}},
		{Name: "registersegment", Columns: []int{ColCashRegisterID, ColCustomerID, ColPrice}},
		{Name: "pdc", Columns: []int{ColPrice, ColDateAndTime, ColCustomerID}},
	}
	t.Indexes = append(t.Indexes, all[:k]...)
	return t
}

// LeadingDomain is the value range [0, n) of an index's leading column, used
// to draw range-query bounds.
func LeadingDomain(t *model.Table, idx int) int64 {
	switch t.Indexes[idx].Columns[0] {
	case ColProductID:
		return Products
	case ColCashRegisterID:
		return CashRegisters
	case ColPrice:
		return Prices
	}
	return 1
}

// MakeUnique makes the secondary index named name of t unique. The
// generated columns repeat (productid, customerid, price has 5×10^11
// values and a table may hold more rows with any two alike), so the index
// gets transactionid appended as a column of its own: the entries, their
// order and the range queries are those of the published index (every
// engine already orders entries by the PK within equal columns), and
// uniqueness over its columns holds for every row the workload writes.
// What changes is the work of an insert: the engine must check the key
// before writing it (InnoDB cannot buffer the change; PostgreSQL checks
// the leaf it inserts into; MyRocks and the kv engines read the key, a
// bloom-filter probe on an LSM). It reports whether t has the index.
func MakeUnique(t *model.Table, name string) bool {
	for i := range t.Indexes {
		if t.Indexes[i].Name == name {
			t.Indexes[i].Unique = true
			t.Indexes[i].Columns = append(append([]int(nil), t.Indexes[i].Columns...), ColTransactionID)
			return true
		}
	}
	return false
}

// IndexNames are the secondary indexes in the order --indexes adds them.
var IndexNames = []string{"marketsegment", "registersegment", "pdc"}

// checkUniqueIndex checks --unique-index against --indexes.
func checkUniqueIndex(name string, k int) error {
	if name == "" {
		return nil
	}
	for i, n := range IndexNames {
		if n == name {
			if i >= k {
				return fmt.Errorf("--unique-index %s needs --indexes %d or more (it is index %d of %s), got --indexes %d", name, i+1, i+1, strings.Join(IndexNames, ","), k)
			}
			return nil
		}
	}
	return fmt.Errorf("--unique-index %q is not an index of the benchmark: choose one of %s", name, strings.Join(IndexNames, ","))
}
