package mysql

import (
	"context"
	stdsql "database/sql"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"rumbench/internal/enginetest"
	"rumbench/internal/model"
	"rumbench/internal/testdb"
)

// TestErrorKinds: InnoDB's real deadlock and lock wait timeout carry their
// model kinds.
func TestErrorKinds(t *testing.T) {
	a := admin(t)
	name := testdb.Name(t, "rumbench_test_innodb_errkinds")
	db := enginetest.OpenServer(t, enginetest.Target{Engine: "innodb", DSN: dsn(), Database: name})
	defer db.Close()
	enginetest.CheckKind(t, "crossed updates", enginetest.CrossedUpdates(t, db, "ek"), model.ErrDeadlock)

	// A lock wait timeout from statements of our own, through the dialect.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var cs [2]*stdsql.Conn
	for i := range cs {
		c, err := a.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		cs[i] = c
	}
	must := func(c *stdsql.Conn, q string) {
		t.Helper()
		if _, err := c.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	must(cs[0], "CREATE TABLE "+name+".ek2 (id int PRIMARY KEY, n int) ENGINE=InnoDB")
	must(cs[0], "INSERT INTO "+name+".ek2 VALUES (1, 0)")
	must(cs[0], "BEGIN")
	must(cs[0], "UPDATE "+name+".ek2 SET n = n + 1 WHERE id = 1")
	must(cs[1], "SET SESSION innodb_lock_wait_timeout = 1")
	_, err := cs[1].ExecContext(ctx, "UPDATE "+name+".ek2 SET n = n + 1 WHERE id = 1")
	enginetest.CheckKind(t, "lock wait timeout", model.WithKind(err, Dialect{}.ErrorKind(err)), model.ErrLockTimeout)
	must(cs[0], "ROLLBACK")
	if k := (Dialect{}).ErrorKind(context.Canceled); k != nil {
		t.Errorf("a non-MariaDB error has kind %v", k)
	}
}

// TestMyRocksStatusKinds: RocksDB's statuses as MyRocks quotes them in
// errors of other numbers.
func TestMyRocksStatusKinds(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want error
	}{
		{"Got error 10 'Operation timed out: Timeout waiting to lock key' from ROCKSDB", model.ErrLockTimeout},
		{"Got error 12 'Resource busy: Deadlock' from ROCKSDB", model.ErrDeadlock},
		{"Got error 12 'Resource busy: ' from ROCKSDB", model.ErrSerialization},
		{"Got error 13 'Operation failed. Try again.: ' from ROCKSDB", model.ErrSerialization},
		{"Got error 122 'Internal error' from ROCKSDB", nil},
	} {
		err := &mysql.MySQLError{Number: 1180, Message: tc.msg}
		if got := (Dialect{}).ErrorKind(err); got != tc.want {
			t.Errorf("ErrorKind(%q) = %v, want %v", tc.msg, got, tc.want)
		}
	}
}
