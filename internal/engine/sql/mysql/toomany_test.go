package mysql

import (
	"errors"
	"testing"

	"github.com/go-sql-driver/mysql"

	"rumbench/internal/model"
)

// Too many connections, and a connection the server closed, name the
// address and are the user's to fix (exit 2).
func TestClassifyConnectionErrors(t *testing.T) {
	cfg, err := mysql.ParseDSN("bench:s3cret@tcp(db.example:3307)/")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		err  error
		want string
	}{
		{&mysql.MySQLError{Number: 1040, Message: "Too many connections"}, "innodb: the server at tcp(db.example:3307) refused a connection (Too many connections): use fewer --clients, or raise its max_connections"},
		{mysql.ErrInvalidConn, "innodb: the server at tcp(db.example:3307) closed the connection (invalid connection): check that --dsn or $RUMBENCH_MYSQL_DSN names a MariaDB server, and its log"},
	} {
		got := classify("innodb", c.err, cfg, "rumbench")
		if got.Error() != c.want || !errors.Is(got, model.ErrSetup) {
			t.Errorf("classify(%v): %q (setup error %v), want %q as a setup error", c.err, got, errors.Is(got, model.ErrSetup), c.want)
		}
	}
}
