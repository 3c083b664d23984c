package mysql

import (
	"context"
	"testing"

	"rumbench/internal/enginetest"
	"rumbench/internal/model"
	"rumbench/internal/testdb"
)

// TestConfigDiffTableOptions: InnoDB's table compression is an engine
// option, not a server setting; the config diff has it, so two variants
// that differ only by it read back apart, and one without it has none.
func TestConfigDiffTableOptions(t *testing.T) {
	for _, c := range []struct {
		opts map[string]string
		want string
	}{
		{map[string]string{"row_format": "compressed", "key_block_size": "4"}, "ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=4"},
		{nil, ""},
	} {
		tg := enginetest.Target{Engine: "innodb", DSN: dsn(), Database: testdb.Name(t, "rumbench_test_innodb_tableopts"), Options: c.opts}
		db := enginetest.OpenServer(t, tg)
		d, err := db.(model.ConfigDiffer).ConfigDiff(context.Background())
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := d.Get("table_options"); got != c.want {
			t.Errorf("options %v: table_options read back %q, want %q", c.opts, got, c.want)
		}
	}
}
