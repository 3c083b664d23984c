package mongo

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"rumbench/internal/engine"
	"rumbench/internal/engine/dbserver"
	"rumbench/internal/enginetest"
	"rumbench/internal/model"
	"rumbench/internal/results"
	"rumbench/internal/runner"
	"rumbench/internal/testdb"
	"rumbench/internal/workload"
	"rumbench/internal/workload/hotrow"
	"rumbench/internal/workload/ibench"
)

// TestWriteAndQuerySteps runs the shared server-engine suite: l.i0, l.x,
// l.i1, l.i2 with row counts and index consistency (verify), then qr100 and
// qp100, then drops the database.
func TestWriteAndQuerySteps(t *testing.T) {
	tg := target(t, "rumbench_test_mongo_steps")
	c := client(t)
	if isFerret(t, c) {
		// FerretDB on SQLite pushes no _id range or sort down to SQL: every
		// delete of the oldest rows scans and decodes the whole collection
		// (about 0.5 s per 3000 documents here), so the default sizes take
		// minutes. The same steps and checks on less data.
		tg.Rows, tg.ChurnRows = 1000, 1000
	}
	enginetest.OpenServer(t, tg).Close()
	enginetest.ServerSteps(t, tg)
	enginetest.DropDatabase(t, tg)
	if dbExists(t, c, tg.Database) {
		t.Fatalf("database %s still exists after DropDatabase", tg.Database)
	}
}

// TestSemantics runs the Semantics part of the conformance suite: bounded
// deletes, duplicate keys, unique indexes and the row operations (point
// delete, upsert, bounded range, transactions), each asserting that a
// refused insert writes nothing. (The other engines run the whole of
// enginetest.Conformance; its model-checked churn parts are left out here:
// FerretDB scans a whole collection for every bounded delete.) A server without multi-document
// transactions (FerretDB, a standalone mongod; the test asks the server
// itself with hello, not the engine) declares so: the two transaction
// parts check that Begin refuses with model.ErrNotSupported, then skip.
func TestSemantics(t *testing.T) {
	c := client(t)
	tg := target(t, "rumbench_test_mongo_sem")
	db := enginetest.OpenServer(t, tg)
	defer db.Close()
	var lacks enginetest.Lacks
	switch topo := serverTopology(t, c); {
	case isFerret(t, c):
		lacks.Transactions = "FerretDB 1.x is a standalone server (no replica set)"
	case topo == "standalone":
		lacks.Transactions = "a standalone mongod (they need a replica set)"
	}
	enginetest.SemanticsLacking(t, db, lacks)
}

// serverTopology is "standalone", "replica set" or "sharded", from hello.
func serverTopology(t *testing.T, c *mongo.Client) string {
	t.Helper()
	var hello bson.M
	if err := c.Database("admin").RunCommand(context.Background(), bson.D{{Key: "hello", Value: 1}}).Decode(&hello); err != nil {
		t.Fatalf("hello: %v", err)
	}
	switch {
	case hello["msg"] == "isdbgrid":
		return "sharded"
	case hello["setName"] != nil:
		return "replica set"
	}
	return "standalone"
}

func smallTable() *model.Table {
	return &model.Table{Name: "t1", Columns: []model.Column{{Name: "k", Type: model.Int}, {Name: "v", Type: model.String, MaxLen: 10}}, PK: []int{0}}
}

func TestOpenCreatesAndDrops(t *testing.T) {
	c := client(t)
	tg := target(t, "rumbench_test_mongo_drop")
	ctx := context.Background()
	db := enginetest.OpenServer(t, tg)
	if !dbExists(t, c, tg.Database) {
		t.Fatalf("Open did not create database %s", tg.Database)
	}
	info := db.Info()
	for _, k := range []string{"server_version", "topology", "transactions", "w", "j", "read_concern", "database"} {
		if info.Settings[k] == "" {
			t.Errorf("setting %s not recorded: %v", k, info.Settings)
		}
	}
	tbl := smallTable()
	if err := db.CreateTable(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var rows []model.Row
	for i := range 10 {
		rows = append(rows, model.Row{{Int: int64(i)}, {Bytes: []byte(fmt.Sprintf("v%d", i))}})
	}
	if err := conn.Insert(ctx, tbl, rows); err != nil {
		t.Fatal(err)
	}
	if n, err := conn.DeleteOldest(ctx, tbl, nil, 3); err != nil || n != 3 {
		t.Fatalf("DeleteOldest(3) = %d, %v", n, err)
	}
	// The oldest left is 3: rows 0..2 are gone, 3 is found with its value.
	var got []string
	n, err := conn.Get(ctx, tbl, []model.Row{{{Int: 2}}, {{Int: 3}}, {{Int: 9}}}, func(r model.Row) {
		got = append(got, fmt.Sprintf("%d=%s", r[0].Int, r[1].Bytes))
	})
	if err != nil || n != 2 {
		t.Fatalf("Get = %d %v, %v", n, got, err)
	}
	if found, err := conn.Update(ctx, tbl, model.Row{{Int: 3}}, []model.Change{{Col: 1, Op: model.Set, Value: model.Value{Bytes: []byte("new")}}}); err != nil || !found {
		t.Fatalf("Update = %v, %v", found, err)
	}
	if found, err := conn.Update(ctx, tbl, model.Row{{Int: 0}}, []model.Change{{Col: 1, Op: model.Set, Value: model.Value{Bytes: []byte("x")}}}); err != nil || found {
		t.Fatalf("Update of a deleted row = %v, %v", found, err)
	}
	if n, err := conn.DeleteOldest(ctx, tbl, nil, 100); err != nil || n != 7 {
		t.Fatalf("DeleteOldest(100) on 7 rows = %d, %v", n, err)
	}
	conn.Close()
	if n, err := db.Size(ctx); err != nil || n <= 0 {
		t.Errorf("Size = %d, %v", n, err)
	}
	st, err := db.(model.StatsReporter).Stats(ctx)
	if err != nil {
		t.Fatalf("Stats: %v", err)
	}
	if _, ok := st["collections"].(map[string]any)["t1"]; !ok {
		t.Errorf("stats have no collStats of t1: %v", st)
	}
	if isFerret(t, c) {
		t.Log("FerretDB: serverStatus has no wiredTiger section, so its cache/block-manager stats are not checked")
	} else {
		for _, k := range []string{"cache_bytes", "cache_max_bytes", "block_bytes_written", "checkpoints"} {
			if _, ok := st[k]; !ok {
				t.Errorf("stats have no %s: %v", k, st)
			}
		}
	}
	if pid, dir, err := db.(model.ProcessOwner).ServerProcess(ctx); err != nil {
		t.Logf("server process not found (allowed for a server in another container or user): %v", err)
	} else if pid <= 0 {
		t.Errorf("ServerProcess = %d, %q", pid, dir)
	} else {
		t.Logf("server pid %d, data dir %q", pid, dir)
	}
	if err := db.(dbserver.DatabaseDropper).DropDatabase(ctx); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if dbExists(t, c, tg.Database) {
		t.Fatalf("database %s still exists", tg.Database)
	}

	// drop_database=true drops at Close.
	db2, err := engine.Open(ctx, "mongodb", model.Config{DSN: tg.DSN, Database: tg.Database, Options: map[string]string{"drop_database": "true"}})
	if err != nil {
		t.Fatal(err)
	}
	if err := db2.Close(); err != nil {
		t.Fatal(err)
	}
	if dbExists(t, c, tg.Database) {
		t.Fatalf("database %s still exists after Close with drop_database=true", tg.Database)
	}
}

// TestForeignDatabase: a database with collections but no rumbench catalog
// is refused and left alone.
func TestForeignDatabase(t *testing.T) {
	c := client(t)
	ctx := context.Background()
	name := testdb.Name(t, "rumbench_test_mongo_foreign")
	fdb := c.Database(name)
	fdb.Drop(ctx)
	t.Cleanup(func() { fdb.Drop(context.Background()) })
	if _, err := fdb.Collection("precious").InsertOne(ctx, bson.D{{Key: "x", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	_, err := engine.Open(ctx, "mongodb", model.Config{DSN: serverDSN(t), Database: name})
	if err == nil || !strings.Contains(err.Error(), "not created by rumbench") {
		t.Fatalf("open of a foreign database: %v", err)
	}
	if n, err := fdb.Collection("precious").CountDocuments(ctx, bson.D{}); err != nil || n != 1 {
		t.Fatalf("foreign collection now has %d documents (%v)", n, err)
	}
}

// TestCoveredRangeQueries: every range-query shape is an index scan in
// index order that reads no document (covered, no blocking sort), and the
// delete's id lookup is an _id index range — checked with explain on a real
// MongoDB. FerretDB's explain describes its SQL backend instead.
func TestCoveredRangeQueries(t *testing.T) {
	c := client(t)
	if isFerret(t, c) {
		// Observed: explain gives the SQL plan, a full scan of the
		// collection's table ("SCAN pi1_…" on SQLite, "Seq Scan" on
		// PostgreSQL): FerretDB 1.x evaluates the filter, sort, projection
		// and limit in Go and ignores the hint and the secondary indexes.
		t.Skip("FerretDB 1.x has no MongoDB query planner: range queries are full scans filtered and sorted in Go, explain shows the SQL plan; covering is checked on MongoDB only")
	}
	tg := target(t, "rumbench_test_mongo_plans")
	db := enginetest.OpenServer(t, tg)
	defer db.Close()
	ctx := context.Background()
	tbl := ibench.Table("pi1", ibench.MaxIndexes, 20)
	if err := db.CreateTable(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	conn, _ := db.Conn(ctx)
	defer conn.Close()
	var rows []model.Row
	for g := int64(1); g <= 5000; g++ {
		rows = append(rows, model.Row{{Int: g}, {Int: 1700000000 + g/100}, {Int: g % 1000}, {Int: g % 10000}, {Int: g % 100000}, {Int: g % 500}, {Bytes: []byte("xxxxxxxxxx")}})
	}
	if err := conn.Insert(ctx, tbl, rows); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateIndexes(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	m := newMeta(tbl)
	for i := range tbl.Indexes {
		s := m.index(i)
		lower := model.Row{{Int: 5}}
		cmd := bson.D{
			{Key: "find", Value: tbl.Name},
			{Key: "filter", Value: bson.Raw(appendRangeFilter(nil, m, s, lower, false))},
			{Key: "sort", Value: s.sortAsc}, {Key: "projection", Value: s.proj},
			{Key: "limit", Value: 10}, {Key: "hint", Value: s.hint},
		}
		var out bson.M
		if err := c.Database(tg.Database).RunCommand(ctx, bson.D{{Key: "explain", Value: cmd}, {Key: "verbosity", Value: "executionStats"}}).Decode(&out); err != nil {
			t.Fatalf("explain %v: %v", cmd, err)
		}
		plan := fmt.Sprint(out["queryPlanner"])
		stats, _ := out["executionStats"].(bson.M)
		docs, _ := asInt64(stats["totalDocsExamined"])
		if !strings.Contains(plan, "IXSCAN") || strings.Contains(plan, "FETCH") || strings.Contains(plan, "SORT ") || strings.Contains(plan, "stage:SORT") || docs != 0 {
			t.Errorf("index %s: range query is not a covered index scan in order (docs examined %d):\n%s", tbl.Indexes[i].Name, docs, plan)
		}
		// And the engine's own Scan returns the same 10 entries in order.
		var prev model.Row
		n, err := conn.Scan(ctx, tbl, model.ScanSpec{Index: i, Lower: lower, Limit: 10}, func(r model.Row) bool {
			if prev != nil && compareRows(prev, r) > 0 {
				t.Errorf("index %s: %v after %v", tbl.Indexes[i].Name, r, prev)
			}
			prev = model.CopyRow(prev, r)
			return true
		})
		if err != nil || n != 10 {
			t.Errorf("scan %s = %d, %v", tbl.Indexes[i].Name, n, err)
		}
	}
}

func compareRows(a, b model.Row) int {
	for i := range a {
		switch {
		case a[i].Int < b[i].Int:
			return -1
		case a[i].Int > b[i].Int:
			return 1
		}
	}
	return 0
}

// TestHotRowNoLostUpdates: $inc updates of the hot rows are all counted:
// the counters grow by exactly the committed updates, with one client and
// with several clients updating the same rows at once.
func TestHotRowNoLostUpdates(t *testing.T) {
	c := client(t)
	ferret := isFerret(t, c)
	t.Run("serial", func(t *testing.T) {
		hotRowSweep(t, target(t, "rumbench_test_mongo_hotrow1"), []int{1}, []int{1})
	})
	t.Run("concurrent", func(t *testing.T) {
		if ferret {
			// Observed: "lost updates: the hot rows' counters grew by 1 but 4
			// updates committed". FerretDB 1.x applies update operators in its
			// handler (read the document, apply $inc in Go, write it back)
			// without a lock or a transaction around the three.
			t.Skip("FerretDB 1.x loses concurrent $inc updates of one document (its update is an unlocked read-modify-write): checked on MongoDB only")
		}
		hotRowSweep(t, target(t, "rumbench_test_mongo_hotrow"), []int{1, 2}, []int{4, 8})
	})
}

func hotRowSweep(t *testing.T, tg enginetest.Target, tables, concurrency []int) {
	enginetest.OpenServer(t, tg).Close()
	cfg := hotrow.DefaultConfig()
	cfg.Tables, cfg.Concurrency, cfg.CellSeconds, cfg.Rows, cfg.Seed = tables, concurrency, 0.4, 3000, 11
	res, err := runner.Run(context.Background(), runner.Options{
		Variants: model.BareVariants("mongodb"), Out: t.TempDir(), DSN: tg.DSN, Database: tg.Database,
		Interval: 200 * time.Millisecond, Seed: cfg.Seed, Config: cfg,
		NewWorkload: func() (workload.Workload, error) { return hotrow.New(cfg) },
	})
	if err != nil {
		t.Fatal(err)
	}
	b, err := results.Read(res[0].Dir)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, cell := range cfg.Cells() {
		s := b.Steps[cell.Name()]
		if s == nil || !s.Complete {
			t.Fatalf("cell %s missing or incomplete: %+v", cell.Name(), s)
		}
		committed := int64(s.Details[hotrow.DetailCommitted].(float64))
		delta := int64(s.Details[hotrow.DetailCounterDelta].(float64))
		if s.Details[hotrow.DetailCounterCheck] != hotrow.DetailCheckOK || delta != committed || committed < int64(cell.Clients) {
			t.Fatalf("cell %s: check %v, counters grew by %d, %d committed", cell.Name(), s.Details[hotrow.DetailCounterCheck], delta, committed)
		}
		total += committed
	}
	db, err := engine.Open(context.Background(), "mongodb", model.Config{DSN: tg.DSN, Database: tg.Database})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	hb, _ := hotrow.New(cfg)
	got, err := hb.SumHot(context.Background(), db, cfg.MaxTables())
	if err != nil || got != total {
		t.Fatalf("hot rows sum to %d (%v), %d updates committed", got, err, total)
	}
}

// TestTransactions: a rolled-back transaction leaves nothing, a committed
// one everything. Standalone servers and FerretDB have no multi-document
// transactions: Begin must say so with model.ErrNotSupported.
func TestTransactions(t *testing.T) {
	tg := target(t, "rumbench_test_mongo_txn")
	db := enginetest.OpenServer(t, tg)
	defer db.Close()
	ctx := context.Background()
	tbl := smallTable()
	if err := db.CreateTable(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	conn, _ := db.Conn(ctx)
	defer conn.Close()
	tx, err := conn.(model.Transactor).Begin(ctx)
	if db.Info().Settings["transactions"] != "true" {
		if !errors.Is(err, model.ErrNotSupported) {
			t.Fatalf("Begin on a server without transactions: %v, want ErrNotSupported", err)
		}
		t.Skipf("server has no multi-document transactions (%s): %v", db.Info().Settings["topology"], err)
	}
	if err != nil {
		t.Fatal(err)
	}
	row := func(k int64) []model.Row { return []model.Row{{{Int: k}, {Bytes: []byte("x")}}} }
	if err := tx.Insert(ctx, tbl, row(1)); err != nil {
		t.Fatal(err)
	}
	if err := conn.Insert(ctx, tbl, row(9)); err == nil {
		t.Fatal("Insert on the Conn during a transaction succeeded")
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	count := func() int {
		n, err := conn.Scan(ctx, tbl, model.ScanSpec{Index: -1}, func(model.Row) bool { return true })
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != 0 {
		t.Fatalf("%d rows after rollback", n)
	}
	tx, _ = conn.(model.Transactor).Begin(ctx)
	tx.Insert(ctx, tbl, row(1))
	tx.Insert(ctx, tbl, row(2))
	if _, err := tx.Update(ctx, tbl, model.Row{{Int: 1}}, []model.Change{{Col: 1, Op: model.Set, Value: model.Value{Bytes: []byte("y")}}}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 2 {
		t.Fatalf("%d rows after commit, want 2", n)
	}
}

// TestAuthFailure: a wrong user/password is a one-line error without the
// password. MongoDB checks credentials even without --auth for a user that
// does not exist, and so does FerretDB 1.24 (both backends).
func TestAuthFailure(t *testing.T) {
	u, err := url.Parse(serverDSN(t))
	if err != nil {
		t.Fatal(err)
	}
	const pw = "Sekr3t/Passw0rd"
	u.User = url.UserPassword("rumbench_test_nosuchuser", pw)
	q := u.Query()
	q.Set("authSource", "admin")
	q.Set("serverSelectionTimeoutMS", "3000")
	u.RawQuery = q.Encode()
	_, err = engine.Open(context.Background(), "mongodb", model.Config{DSN: u.String(), Database: testdb.Name(t, "rumbench_test_x")})
	checkOneLine(t, err, pw, "authentication failed")
}

func checkOneLine(t *testing.T, err error, pw, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one saying %q", want)
	}
	msg := err.Error()
	if strings.Contains(msg, pw) || strings.Contains(msg, url.QueryEscape(pw)) {
		t.Fatalf("error shows the password: %v", msg)
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("error is not one line: %q", msg)
	}
	if !strings.Contains(msg, want) {
		t.Errorf("error %q does not say %q", msg, want)
	}
}

// TestRefusedInsertWritesNothing: the engine-specific side of the
// semantics suite's "a refused insert writes nothing". A compound primary
// key (an embedded _id document) refused after good rows leaves none of
// them; a unique index build over duplicate values fails with
// model.ErrDuplicateKey and leaves no index on the server either (the
// suite checks the catalog only), so the duplicates can still be inserted.
func TestRefusedInsertWritesNothing(t *testing.T) {
	c := client(t)
	tg := target(t, "rumbench_test_mongo_refused")
	db := enginetest.OpenServer(t, tg)
	defer db.Close()
	ctx := context.Background()
	tbl := &model.Table{
		Name:    "t2",
		Columns: []model.Column{{Name: "a", Type: model.Int}, {Name: "b", Type: model.Int}, {Name: "v", Type: model.Int}},
		PK:      []int{1, 0},
	}
	if err := db.CreateTable(ctx, tbl); err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	row := func(a, b, v int64) model.Row { return model.Row{{Int: a}, {Int: b}, {Int: v}} }
	if err := conn.Insert(ctx, tbl, []model.Row{row(1, 1, 7), row(2, 1, 7)}); err != nil {
		t.Fatal(err)
	}
	err = conn.Insert(ctx, tbl, []model.Row{row(3, 1, 8), row(1, 2, 8), row(2, 1, 8), row(4, 1, 8)})
	if !errors.Is(err, model.ErrDuplicateKey) {
		t.Fatalf("insert of a batch with an existing compound key: %v, want model.ErrDuplicateKey", err)
	}
	coll := c.Database(tg.Database).Collection(tbl.Name)
	if n, err := coll.CountDocuments(ctx, bson.D{}); err != nil || n != 2 {
		t.Fatalf("%d documents after the refused batch (%v), want the 2 inserted before it", n, err)
	}
	if n, err := coll.CountDocuments(ctx, bson.D{{Key: "v", Value: int64(8)}}); err != nil || n != 0 {
		t.Fatalf("%d documents of the refused batch are left (%v)", n, err)
	}

	tbl.Indexes = []model.Index{{Name: "uq_v", Columns: []int{2}, Unique: true}}
	if err := db.CreateIndexes(ctx, tbl); !errors.Is(err, model.ErrDuplicateKey) {
		t.Fatalf("unique index build over duplicate values: %v, want model.ErrDuplicateKey", err)
	}
	specs, err := coll.Indexes().ListSpecifications(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range specs {
		if s.Name != "_id_" {
			t.Errorf("index %s is left on the server after the failed build", s.Name)
		}
	}
	if err := conn.Insert(ctx, tbl, []model.Row{row(5, 1, 7)}); err != nil {
		t.Fatalf("insert of a third v=7 after the failed build: %v", err)
	}
}

// TestOpenReadOnly (issue 34): a read-only open (rumbench verify) of a
// database that does not exist is model.ErrNoData and creates nothing; of
// a run's database it reads the tables and, with drop_database=true,
// still drops nothing.
func TestOpenReadOnly(t *testing.T) {
	c := client(t)
	ctx := context.Background()
	missing := testdb.Name(t, "rumbench_test_ro_missing")
	c.Database(missing).Drop(ctx)
	_, err := engine.Open(ctx, "mongodb", model.Config{DSN: serverDSN(t), Database: missing, ReadOnly: true})
	if !errors.Is(err, model.ErrNoData) || !strings.Contains(err.Error(), "--database") {
		t.Fatalf("read-only open of a missing database: %v, want ErrNoData naming --database", err)
	}
	if dbExists(t, c, missing) {
		c.Database(missing).Drop(ctx)
		t.Fatalf("a read-only open created database %s", missing)
	}

	tg := target(t, "rumbench_test_ro")
	enginetest.OpenServer(t, tg).Close() // created, and dropped when the test ends
	db, err := engine.Open(ctx, "mongodb", model.Config{DSN: tg.DSN, Database: tg.Database, ReadOnly: true, Options: map[string]string{"drop_database": "true"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Tables(ctx); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if !dbExists(t, c, tg.Database) {
		t.Fatal("a read-only open dropped the database at Close (drop_database=true)")
	}
}
