package mongo

import (
	"context"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"rumbench/internal/engine/sql/blockconn"
	"rumbench/internal/enginetest"
	"rumbench/internal/model"
	"rumbench/internal/testdb"
)

func TestClientIOOption(t *testing.T) {
	for _, c := range []struct {
		raw      string
		blocking bool
		err      string
	}{
		{"", false, ""}, // unset: the engine's default
		{"netpoller", false, ""},
		{"blocking", true, ""},
		{"poll", false, `mongodb: bad client_io "poll": want blocking or netpoller`},
	} {
		opts := map[string]string{}
		if c.raw != "" {
			opts[blockconn.OptionKey] = c.raw
		}
		p, err := parseConfig(model.Config{DSN: "mongodb://127.0.0.1:27017/", Options: opts}, false)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "\n") {
				t.Errorf("client_io=%q: error %v, want one line containing %q", c.raw, err, c.err)
			}
		case err != nil:
			t.Errorf("client_io=%q: %v", c.raw, err)
		case p.blocking != c.blocking:
			t.Errorf("client_io=%q: blocking = %v, want %v", c.raw, p.blocking, c.blocking)
		}
	}
}

// recordingDialer is the engine's blockingDialer keeping the connections it
// dialled, so the test can see which went blocking.
type recordingDialer struct {
	blockingDialer
	mu    sync.Mutex
	conns []net.Conn
}

func (d *recordingDialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	nc, err := d.blockingDialer.DialContext(ctx, network, address)
	if err == nil {
		d.mu.Lock()
		d.conns = append(d.conns, nc)
		d.mu.Unlock()
	}
	return nc, err
}

func (d *recordingDialer) blocking() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for _, nc := range d.conns {
		if bc, ok := nc.(busyConn); ok && blockconn.Blocking(bc.Conn) {
			n++
		}
	}
	return n
}

// TestBlockingDialer: with the dialer, a pooled connection used by commands
// back to back moves to blocking mode and keeps answering correctly, and
// GOMAXPROCS is back to where it was once the client disconnects.
func TestBlockingDialer(t *testing.T) {
	dsn := serverDSN(t)
	procs := runtime.GOMAXPROCS(0)
	d := &recordingDialer{}
	c, err := mongo.Connect(options.Client().ApplyURI(dsn).SetDialer(d).SetServerSelectionTimeout(10 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	coll := c.Database(testdb.Name(t, "rumbench_test_mongo_clientio")).Collection("t")
	defer coll.Database().Drop(context.Background()) //nolint:errcheck // best effort
	var docs []any
	for i := range 20 {
		docs = append(docs, bson.D{{Key: "_id", Value: int64(i)}, {Key: "v", Value: int64(i * 3)}})
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		var got bson.M
		if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: int64(i)}}).Decode(&got); err != nil {
			t.Fatalf("find %d: %v", i, err)
		}
		if got["v"] != int64(i*3) {
			t.Fatalf("find %d: v = %v, want %d", i, got["v"], i*3)
		}
	}
	if d.blocking() == 0 {
		t.Errorf("no connection went blocking after 20 finds back to back (%d dialled)", len(d.conns))
	}
	if err := c.Disconnect(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := runtime.GOMAXPROCS(0); got != procs {
		t.Errorf("GOMAXPROCS %d after disconnecting, was %d", got, procs)
	}
}

// TestClientIOBlockingEngine: the engine with client_io=blocking records
// it and reads back what it wrote through blocking connections.
func TestClientIOBlockingEngine(t *testing.T) {
	tg := target(t, "rumbench_test_mongo_blocking")
	tg.Options = map[string]string{blockconn.OptionKey: "blocking"}
	db := enginetest.OpenServer(t, tg)
	defer db.Close()
	if got := db.Info().Settings[blockconn.OptionKey]; got != "blocking" {
		t.Fatalf("setting %s = %q, want blocking", blockconn.OptionKey, got)
	}
	ctx := context.Background()
	tbl := smallTable()
	if err := db.CreateTable(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var rows []model.Row
	for i := range 50 {
		rows = append(rows, model.Row{{Int: int64(i)}, {Bytes: []byte("v")}})
	}
	if err := conn.Insert(ctx, tbl, rows); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		var keys []int64
		n, err := conn.Scan(ctx, tbl, model.ScanSpec{Index: -1, Lower: model.Row{{Int: int64(i * 5)}}, Limit: 3}, func(r model.Row) bool {
			keys = append(keys, r[0].Int)
			return true
		})
		if err != nil || n != 3 || keys[0] != int64(i*5) || keys[2] != int64(i*5+2) {
			t.Fatalf("scan from %d = %d %v, %v; want 3 keys from %d", i*5, n, keys, err, i*5)
		}
	}
}
