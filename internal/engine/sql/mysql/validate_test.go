package mysql

import (
	"strings"
	"testing"

	"rumbench/internal/engine"
	"rumbench/internal/model"
)

// TestValidateConfig checks that bad settings are refused without opening
// anything (engine.CheckConfig runs before any engine of a run starts).
func TestValidateConfig(t *testing.T) {
	cases := []struct {
		engine string
		cfg    model.Config
		want   string // "" = valid
	}{
		{"innodb", model.Config{DSN: "root@tcp(localhost:3306)/"}, ""},
		{"innodb", model.Config{DSN: "mysql://root@localhost/"}, "URL"},
		{"innodb", model.Config{DSN: "root@tcp(localhost"}, "--dsn"},
		{"innodb", model.Config{DSN: "root@tcp(localhost:3306)/", Options: map[string]string{"prepare": "maybe"}}, "prepare"},
		{"innodb", model.Config{DSN: "root@tcp(localhost:3306)/", Options: map[string]string{"client_io": "epoll"}}, "client_io"},
		{"myrocks", model.Config{DSN: "root@tcp(localhost:3306)/", Options: map[string]string{"install_plugin": "maybe"}}, "install_plugin"},
		{"innodb", model.Config{Options: map[string]string{"page_size": "8k", "row_format": "compressed", "key_block_size": "4"}}, ""},
		{"innodb", model.Config{Options: map[string]string{"page_size": "12k"}}, "page_size"},
		{"innodb", model.Config{Options: map[string]string{"row_format": "zipped"}}, "row_format"},
		{"innodb", model.Config{Options: map[string]string{"row_format": "compressed", "key_block_size": "3"}}, "key_block_size"},
		{"myrocks", model.Config{Options: map[string]string{"compression": "lz4"}}, ""},
		{"myrocks", model.Config{Options: map[string]string{"compression": "brotli"}}, "compression"},
	}
	for _, c := range cases {
		d, err := engine.Lookup(c.engine)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := d.(model.ConfigValidator); !ok {
			t.Fatalf("%s does not implement model.ConfigValidator", c.engine)
		}
		_, err = engine.CheckConfig(d, c.cfg)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %+v: %v", c.engine, c.cfg, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s %+v: error %v, want one mentioning %q", c.engine, c.cfg, err, c.want)
		}
	}
}

// TestServerSettingsCheck: a page size or MyRocks compression the server
// was not started with is refused in one line naming both.
func TestServerSettingsCheck(t *testing.T) {
	var p parsed
	for name, opts := range map[string]map[string]string{"innodb": {"page_size": "8k", "row_format": "compressed"}, "myrocks": {"compression": "zstd"}} {
		d, err := engine.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.(Driver).optionTable(&p).Parse(opts); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.tableOptions(); err != nil {
		t.Fatal(err)
	}
	if p.rowFormat != " ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8" {
		t.Errorf("row format %q", p.rowFormat)
	}
	err := p.checkServerSettings("innodb", map[string]string{"innodb_page_size": "16384", "rocksdb_default_cf_options": "compression=kZSTD;"})
	if err == nil || !strings.Contains(err.Error(), "16384") || !strings.Contains(err.Error(), "8192") {
		t.Errorf("page size mismatch: %v", err)
	}
	err = p.checkServerSettings("myrocks", map[string]string{"innodb_page_size": "8192", "rocksdb_default_cf_options": "write_buffer_size=64m"})
	if err == nil || !strings.Contains(err.Error(), "kSnappyCompression") || !strings.Contains(err.Error(), "kZSTD") {
		t.Errorf("compression mismatch: %v", err)
	}
	if err := p.checkServerSettings("myrocks", map[string]string{"innodb_page_size": "8192", "rocksdb_default_cf_options": "compression=kZSTD;x=1"}); err != nil {
		t.Errorf("matching settings refused: %v", err)
	}
}
