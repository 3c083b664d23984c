package kv

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"rumbench/internal/model"
	"rumbench/internal/workload/ibench"
)

// ibenchRows are n rows shaped like the insert benchmark's: ascending
// transaction ids, a timestamp, small ids, a price and a 10–20 byte pad.
func ibenchRows(n int) []model.Row {
	rows := make([]model.Row, n)
	for i := range rows {
		rows[i] = model.Row{
			ibench.ColTransactionID:  {Int: int64(1_000_000 + i)},
			ibench.ColDateAndTime:    {Int: 1_764_000_000 + int64(i/3)},
			ibench.ColCashRegisterID: {Int: int64(i*7) % 1000},
			ibench.ColProductID:      {Int: int64(i*13) % 10000},
			ibench.ColCustomerID:     {Int: int64(i*31) % 100000},
			ibench.ColPrice:          {Int: int64(i*17) % 500},
			ibench.ColData:           {Bytes: []byte("pad-pad-pad-pad-pad-")[:10+i%11]},
		}
	}
	return rows
}

// BenchmarkRowValue: a row's PK entry value encoded (appendValue, per row
// inserted) and decoded (decodeValue, per row a point query returns), on
// the insert benchmark's table.
func BenchmarkRowValue(b *testing.B) {
	st, err := newTableState(7, ibench.Table("pi1", 3, 20), []byte{1, 2, 3}, nil, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	rows := ibenchRows(64)
	b.Run("encode", func(b *testing.B) {
		var dst []byte
		b.ReportAllocs()
		for i := range b.N {
			dst = st.appendValue(dst[:0], rows[i&63])
		}
	})
	b.Run("decode", func(b *testing.B) {
		vals := make([][]byte, len(rows))
		for i, r := range rows {
			vals[i] = st.appendValue(nil, r)
		}
		row := make(model.Row, len(st.schema.Columns))
		b.ReportAllocs()
		for i := range b.N {
			if err := st.decodeValue(vals[i&63], row); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pkKeys", func(b *testing.B) {
		c := &conn{}
		b.ReportAllocs()
		for range b.N / 64 {
			if err := c.pkKeys(st, rows); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestRowValueRoundTrip: a row's value decodes to its non-PK columns,
// strings and negative Ints included; a truncated value is an error.
func TestRowValueRoundTrip(t *testing.T) {
	st, err := newTableState(7, ibench.Table("pi1", 3, 20), []byte{1, 2, 3}, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	rows := ibenchRows(40)
	rows[3][ibench.ColPrice].Int = -5
	rows[4][ibench.ColCustomerID].Int = -1 << 62
	rows[5][ibench.ColData].Bytes = nil
	// One row decoded into, row after row, as a Get does, first filled
	// with values of both kinds in every column.
	got := make(model.Row, len(rows[0]))
	for c := range got {
		got[c] = model.Value{Int: 99, Bytes: []byte("stale")}
	}
	for i, r := range rows {
		val := st.appendValue(nil, r)
		if err := st.decodeValue(val, got); err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
		for c := range r {
			if c == ibench.ColTransactionID {
				continue
			}
			if got[c].Int != r[c].Int || string(got[c].Bytes) != string(r[c].Bytes) || (got[c].Bytes == nil) != (r[c].Bytes == nil && c != ibench.ColData) {
				t.Fatalf("row %d column %d: got %+v, want %+v", i, c, got[c], r[c])
			}
		}
		for n := range len(val) {
			if st.decodeValue(val[:n], got) == nil {
				t.Fatalf("row %d: the value cut to %d of %d bytes decoded", i, n, len(val))
			}
		}
	}
}

// TestRowValueFormat: the value's bytes are the stored format, zig-zag
// varints for Ints and uvarint-length-prefixed Strings in non-PK column
// order, for Ints at the varint lengths' edges and a long string; a value
// appended to bytes already there leaves them as they were.
func TestRowValueFormat(t *testing.T) {
	st, err := newTableState(7, ibench.Table("pi1", 3, 20), []byte{1, 2, 3}, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ints := []int64{0, 1, -1, 63, -64, 64, -65, 1<<13 - 1, 1 << 13, 1<<62 - 1, 1 << 62, -1 << 62, -1<<62 - 1, math.MaxInt64, math.MinInt64}
	long := bytes.Repeat([]byte("x"), 300)
	for i, v := range ints {
		row := ibenchRows(1)[0]
		for _, c := range st.nonPK {
			row[c].Int = v
		}
		row[ibench.ColData].Bytes = long[:i*20]
		want := []byte("prefix")
		for _, c := range st.nonPK {
			if st.schema.Columns[c].Type == model.String {
				want = binary.AppendUvarint(want, uint64(len(row[c].Bytes)))
				want = append(want, row[c].Bytes...)
			} else {
				want = binary.AppendVarint(want, row[c].Int)
			}
		}
		if got := st.appendValue([]byte("prefix"), row); !bytes.Equal(got, want) {
			t.Fatalf("Int %d, string of %d bytes: got %x, want %x", v, i*20, got, want)
		}
	}
}
