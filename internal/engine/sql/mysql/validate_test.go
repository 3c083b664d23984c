package mysql

import (
	"strings"
	"testing"

	"rumbench/internal/engine"
	"rumbench/internal/enginetest"
	"rumbench/internal/model"
)

// TestValidateConfig: bad settings are refused without opening anything.
func TestValidateConfig(t *testing.T) {
	enginetest.CheckConfigs(t, []enginetest.ConfigCase{
		{Engine: "innodb", Config: model.Config{DSN: "root@tcp(localhost:3306)/"}, Want: ""},
		{Engine: "innodb", Config: model.Config{DSN: "mysql://root@localhost/"}, Want: "URL"},
		{Engine: "innodb", Config: model.Config{DSN: "root@tcp(localhost"}, Want: "--dsn"},
		{Engine: "innodb", Config: model.Config{DSN: "root@tcp(localhost:3306)/", Options: map[string]string{"prepare": "maybe"}}, Want: "prepare"},
		{Engine: "innodb", Config: model.Config{DSN: "root@tcp(localhost:3306)/", Options: map[string]string{"client_io": "epoll"}}, Want: "client_io"},
		{Engine: "myrocks", Config: model.Config{DSN: "root@tcp(localhost:3306)/", Options: map[string]string{"install_plugin": "maybe"}}, Want: "install_plugin"},
		{Engine: "innodb", Config: model.Config{Options: map[string]string{"page_size": "8k", "row_format": "compressed", "key_block_size": "4"}}, Want: ""},
		{Engine: "innodb", Config: model.Config{Options: map[string]string{"page_size": "12k"}}, Want: "page_size"},
		{Engine: "innodb", Config: model.Config{Options: map[string]string{"row_format": "zipped"}}, Want: "row_format"},
		{Engine: "innodb", Config: model.Config{Options: map[string]string{"row_format": "compressed", "key_block_size": "3"}}, Want: "key_block_size"},
		{Engine: "myrocks", Config: model.Config{Options: map[string]string{"compression": "lz4"}}, Want: ""},
		{Engine: "myrocks", Config: model.Config{Options: map[string]string{"compression": "brotli"}}, Want: "compression"},
	})
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
