package mongo

import (
	"bytes"
	"context"
	"net"
	"os"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"rumbench/internal/engine"
	"rumbench/internal/model"
	"rumbench/internal/workload/ibench"
)

// These tests need no server: they check the document mapping with the
// driver's own BSON code, the configuration checks, and the errors for an
// unreachable server.

// ej renders a document as canonical-ish Extended JSON for comparisons.
func ej(t *testing.T, b []byte) string {
	t.Helper()
	var d bson.D
	if err := bson.Unmarshal(b, &d); err != nil {
		t.Fatalf("not a valid BSON document: %v", err)
	}
	out, err := bson.MarshalExtJSON(d, false, false)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func compoundTable() *model.Table {
	return &model.Table{
		Name: "link",
		Columns: []model.Column{
			{Name: "id1", Type: model.Int}, {Name: "link_type", Type: model.Int}, {Name: "id2", Type: model.Int},
			{Name: "visibility", Type: model.Int}, {Name: "time", Type: model.Time}, {Name: "data", Type: model.String},
		},
		PK:      []int{0, 1, 2},
		Indexes: []model.Index{{Name: "id1_type", Columns: []int{0, 1, 3, 4}}},
	}
}

func TestRowDocuments(t *testing.T) {
	tbl := ibench.Table("pi1", 3, 20)
	m := newMeta(tbl)
	row := model.Row{{Int: 42}, {Int: 1700000000}, {Int: 7}, {Int: 9999}, {Int: 123}, {Int: 499}, {Bytes: []byte("ab\x00\xffc")}}
	doc := m.appendRow(nil, row)
	want := `{"_id":42,"dateandtime":1700000000,"cashregisterid":7,"productid":9999,"customerid":123,"price":499,"data":{"$binary":{"base64":"YWIA/2M=","subType":"00"}}}`
	if got := ej(t, doc); got != want {
		t.Fatalf("document\n got %s\nwant %s", got, want)
	}
	back, err := m.full.decode(doc)
	if err != nil {
		t.Fatal(err)
	}
	for i := range row {
		if back[i].Int != row[i].Int || !bytes.Equal(back[i].Bytes, row[i].Bytes) {
			t.Fatalf("column %d: got %+v, want %+v", i, back[i], row[i])
		}
	}
	// A covering projection as the server returns it (fields in any order):
	// the row is in IndexColumns order, the PK last.
	s := m.index(0)
	proj := bson.D{{Key: "price", Value: int64(499)}, {Key: "_id", Value: int64(42)}, {Key: "productid", Value: int32(9999)}, {Key: "customerid", Value: 123.0}}
	b, _ := bson.Marshal(proj)
	r, err := s.dec.decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if r[0].Int != 9999 || r[1].Int != 123 || r[2].Int != 499 || r[3].Int != 42 {
		t.Fatalf("covering row %+v", r)
	}
	// A missing field is an error, not a zero.
	b, _ = bson.Marshal(bson.D{{Key: "_id", Value: int64(42)}, {Key: "productid", Value: int64(1)}})
	if _, err := s.dec.decode(b); err == nil || !strings.Contains(err.Error(), "customerid") {
		t.Fatalf("decode of a partial document: %v", err)
	}
	// Strings written by other clients as BSON strings read back too.
	b, _ = bson.Marshal(bson.D{{Key: "_id", Value: int64(1)}, {Key: "dateandtime", Value: int64(1)}, {Key: "cashregisterid", Value: int64(1)}, {Key: "productid", Value: int64(1)}, {Key: "customerid", Value: int64(1)}, {Key: "price", Value: int64(1)}, {Key: "data", Value: "hello"}})
	if r, err := m.full.decode(b); err != nil || string(r[ibench.ColData].Bytes) != "hello" {
		t.Fatalf("string field: %q, %v", r[ibench.ColData].Bytes, err)
	}
	if _, err := m.full.decode(mustMarshal(t, bson.D{{Key: "_id", Value: 1.5}})); err == nil {
		t.Fatal("a fractional double decoded as an integer")
	}
}

func mustMarshal(t *testing.T, d bson.D) []byte {
	b, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestShapes(t *testing.T) {
	tbl := ibench.Table("pi1", 3, 20)
	m := newMeta(tbl)
	cases := []struct {
		idx        int
		keys, proj string
		hint       string
	}{
		{-1, `{"_id":1}`, `{"_id":1}`, "_id_"},
		{0, `{"productid":1,"customerid":1,"price":1,"_id":1}`, `{"productid":1,"customerid":1,"price":1,"_id":1}`, "marketsegment"},
		{1, `{"cashregisterid":1,"customerid":1,"price":1,"_id":1}`, `{"cashregisterid":1,"customerid":1,"price":1,"_id":1}`, "registersegment"},
		{2, `{"price":1,"dateandtime":1,"customerid":1,"_id":1}`, `{"price":1,"dateandtime":1,"customerid":1,"_id":1}`, "pdc"},
	}
	for _, c := range cases {
		s := m.index(c.idx)
		if got := ej(t, s.sortAsc); got != c.keys {
			t.Errorf("index %d key/sort %s, want %s", c.idx, got, c.keys)
		}
		if got := ej(t, s.proj); got != c.proj {
			t.Errorf("index %d projection %s, want %s", c.idx, got, c.proj)
		}
		if s.hint != c.hint {
			t.Errorf("index %d hint %s", c.idx, s.hint)
		}
	}
	if got := ej(t, m.index(0).sortDesc); got != `{"productid":-1,"customerid":-1,"price":-1,"_id":-1}` {
		t.Errorf("descending sort %s", got)
	}
	// The published query form: {f: {$gte: v}}.
	s := m.index(0)
	if got := ej(t, appendRangeFilter(nil, m, s, model.Row{{Int: 5}}, false)); got != `{"productid":{"$gte":5}}` {
		t.Errorf("range filter %s", got)
	}
	if got := ej(t, appendRangeFilter(nil, m, s, nil, false)); got != `{}` {
		t.Errorf("unbounded filter %s", got)
	}
	// A longer prefix compares as a tuple.
	got := ej(t, appendRangeFilter(nil, m, s, model.Row{{Int: 5}, {Int: 6}, {Int: 7}}, true))
	want := `{"productid":{"$lte":5},"$or":[{"productid":{"$lt":5}},{"productid":5,"customerid":{"$lt":6}},{"productid":5,"customerid":6,"price":{"$lte":7}}]}`
	if got != want {
		t.Errorf("tuple filter\n got %s\nwant %s", got, want)
	}
	// Bounds on the PK part of the covering columns use _id.
	got = ej(t, appendRangeFilter(nil, m, m.index(-1), model.Row{{Int: 100}}, false))
	if got != `{"_id":{"$gte":100}}` {
		t.Errorf("pk filter %s", got)
	}
}

func TestCompoundKey(t *testing.T) {
	tbl := compoundTable()
	m := newMeta(tbl)
	row := model.Row{{Int: 1}, {Int: 2}, {Int: 3}, {Int: 0}, {Int: 1700000000}, {Bytes: []byte("d")}}
	doc := m.appendRow(nil, row)
	want := `{"_id":{"id1":1,"link_type":2,"id2":3},"visibility":0,"time":1700000000,"data":{"$binary":{"base64":"ZA==","subType":"00"}}}`
	if got := ej(t, doc); got != want {
		t.Fatalf("document\n got %s\nwant %s", got, want)
	}
	back, err := m.full.decode(doc)
	if err != nil {
		t.Fatal(err)
	}
	for i := range row {
		if back[i].Int != row[i].Int || !bytes.Equal(back[i].Bytes, row[i].Bytes) {
			t.Fatalf("column %d: got %+v, want %+v", i, back[i], row[i])
		}
	}
	s := m.index(0)
	if got := ej(t, s.sortAsc); got != `{"_id.id1":1,"_id.link_type":1,"visibility":1,"time":1,"_id":1}` {
		t.Errorf("compound index key %s", got)
	}
	if got := ej(t, s.proj); got != `{"_id":1,"visibility":1,"time":1}` {
		t.Errorf("compound projection %s", got)
	}
	// Covering row: id1, link_type, visibility, time, id2.
	r, err := s.dec.decode(doc)
	if err != nil {
		t.Fatal(err)
	}
	if r[0].Int != 1 || r[1].Int != 2 || r[2].Int != 0 || r[3].Int != 1700000000 || r[4].Int != 3 {
		t.Fatalf("covering row %+v", r)
	}
	if got := ej(t, appendRangeFilter(nil, m, s, model.Row{{Int: 1}, {Int: 2}}, false)); got != `{"_id.id1":{"$gte":1},"$or":[{"_id.id1":{"$gt":1}},{"_id.id1":1,"_id.link_type":{"$gte":2}}]}` {
		t.Errorf("compound filter %s", got)
	}
}

// TestUnreachable: a server that isn't there is a one-line error that says
// so, names the address, and never shows the password.
func TestUnreachable(t *testing.T) {
	// A port nothing listens on: bind one, note it, close it.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	const pw = "Sekr3t/Passw0rd"
	dsn := "mongodb://bench:" + strings.ReplaceAll(pw, "/", "%2F") + "@" + addr + "/?serverSelectionTimeoutMS=1500"
	_, err = engine.Open(context.Background(), "mongodb", model.Config{DSN: dsn, Database: "rumbench_test_x"})
	checkOneLine(t, err, pw, "cannot reach the server at "+addr)
	checkOneLine(t, err, pw, "connection refused")
}

// TestListenerPid finds this process from a port it listens on, as
// ServerProcess finds FerretDB, which does not report its pid.
func TestListenerPid(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	pid, err := listenerPid(port)
	if err != nil {
		t.Fatal(err)
	}
	if pid != os.Getpid() {
		t.Fatalf("listenerPid(%d) = %d, want %d", port, pid, os.Getpid())
	}
	l.Close()
	if pid, err := listenerPid(port); err == nil {
		t.Fatalf("listenerPid of a closed port = %d", pid)
	}
}

// TestNoAllocsPerRow: encoding a batch and decoding rows allocate nothing in
// rumbench's own code once the buffers have grown (design §9: the client
// costs next to nothing; the driver's own costs are the driver's).
func TestNoAllocsPerRow(t *testing.T) {
	tbl := ibench.Table("pi1", 3, 20)
	m := newMeta(tbl)
	row := model.Row{{Int: 42}, {Int: 1700000000}, {Int: 7}, {Int: 9999}, {Int: 123}, {Int: 499}, {Bytes: []byte("abcdefghijklmnop")}}
	buf := m.appendRow(nil, row)
	one := len(buf)
	s := m.index(1)
	lower := model.Row{{Int: 5}}
	allocs := testing.AllocsPerRun(100, func() {
		buf = buf[:0]
		for range 50 {
			buf = m.appendRow(buf, row)
		}
		if _, err := m.full.decode(buf[:one]); err != nil {
			t.Fatal(err)
		}
		if _, err := s.dec.decode(buf[:one]); err != nil {
			t.Fatal(err)
		}
		buf = appendRangeFilter(buf[:0], m, s, lower, false)
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per batch, want 0", allocs)
	}
}
