package ibench

import (
	"fmt"

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
