package managed

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseMariaHelp(t *testing.T) {
	out := `Usage: mariadbd [OPTIONS]
  --innodb-page-size=#  Page size
Variables (--variable-name=value)
and boolean options {FALSE|TRUE}                             Value (after reading options)
------------------------------------------------------------ -------------
innodb-buffer-pool-size                                      134217728
rocksdb-block-cache-size                                     536870912
log-bin                                                      (No default value)

To see what variables a running server is using, type
`
	keys, rocks := parseMariaHelp(out)
	want := map[string]bool{"innodb_buffer_pool_size": true, "rocksdb_block_cache_size": true, "log_bin": true}
	if !reflect.DeepEqual(keys, want) {
		t.Errorf("keys = %v, want %v", keys, want)
	}
	if !reflect.DeepEqual(rocks, map[string]bool{"rocksdb_block_cache_size": true}) {
		t.Errorf("rocksdb keys = %v", rocks)
	}
}

func TestErrorLines(t *testing.T) {
	pg := "2026-11-23 12:12:50.857 GMT [15076] LOG:  starting\n2026-11-23 12:12:50.857 GMT [15076] FATAL:  invalid value for parameter \"shared_buffers\": \"abc\"\n"
	if got := (postgresFlavor{}).errorLine(pg); got != `FATAL: invalid value for parameter "shared_buffers": "abc"` {
		t.Errorf("postgres error line %q", got)
	}
	maria := "2026-11-23 12:13:03 0 [Warning] Could not increase number of max_open_files\n2026-11-23 12:13:03 0 [ERROR] /usr/sbin/mariadbd: unknown variable 'foo-bar=1'\n2026-11-23 12:13:03 0 [ERROR] Aborting\n"
	if got := (&mariadbFlavor{}).errorLine(maria); got != "[ERROR] /usr/sbin/mariadbd: unknown variable 'foo-bar=1'" {
		t.Errorf("mariadb error line %q", got)
	}
	adj := "2026-11-23 12:13:05 0 [Warning] option 'innodb-flush-log-at-trx-commit': unsigned value 7 adjusted to 3\n"
	if got := (&mariadbFlavor{}).adjusted(adj); got != "[Warning] option 'innodb-flush-log-at-trx-commit': unsigned value 7 adjusted to 3" {
		t.Errorf("mariadb adjusted line %q", got)
	}
	if got := (&mariadbFlavor{}).adjusted(maria); got != "" {
		t.Errorf("no adjusted value, got %q", got)
	}
}

// TestRoute needs both servers' binaries: it asks them for their settings.
func TestRoute(t *testing.T) {
	for _, e := range Engines {
		if err := Check(e); err != nil {
			t.Skipf("binaries not installed: %v", err)
		}
	}
	all := []string{"postgres", "innodb", "myrocks"}
	got, err := Route(all, []string{
		"shared_buffers=64MB",
		"innodb-buffer-pool-size=64M", // dashes, as MariaDB's own options
		"rocksdb_block_cache_size=1G",
		"max_connections=200", // both servers have it
		"innodb.innodb_page_size=8k",
		"myrocks.innodb_buffer_pool_size=32M", // later wins, for myrocks only
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]Setting{
		"postgres": {{"shared_buffers", "64MB"}, {"max_connections", "200"}},
		"innodb":   {{"innodb_buffer_pool_size", "64M"}, {"max_connections", "200"}, {"innodb_page_size", "8k"}},
		"myrocks":  {{"innodb_buffer_pool_size", "32M"}, {"rocksdb_block_cache_size", "1G"}, {"max_connections", "200"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Route =\n%v\nwant\n%v", got, want)
	}
	bad := []struct {
		managed []string
		kv      string
		want    string
	}{
		{all, "no_such_setting=1", `unknown --server-opt "no_such_setting"`},
		{[]string{"innodb"}, "rocksdb_block_cache_size=1G", "no managed server (innodb)"},
		{[]string{"postgres"}, "innodb.innodb_page_size=8k", "engine innodb does not run on a managed server"},
		{all, "pebble.cache=1", `"pebble" is not a server engine`},
		{all, "innodb.shared_buffers=1GB", `the innodb server has no setting "shared_buffers"`},
		{all, "port=5000", "rumbench sets it"},
		{all, "datadir=/x", "rumbench sets it"},
		{all, "novalue", "is not key=value"},
	}
	for _, b := range bad {
		_, err := Route(b.managed, []string{b.kv})
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("Route(%v, %q) = %v, want an error containing %q", b.managed, b.kv, err, b.want)
		}
	}
}

// TestRouteRefusesDuplicates (issue 34): one setting twice for one scope is
// refused (the last would silently win), also spelt with '-' once and '_'
// once as MariaDB reads them; the same key for two scopes is not a
// duplicate.
func TestRouteRefusesDuplicates(t *testing.T) {
	for _, kvs := range [][]string{
		{"shared_buffers=64MB", "shared_buffers=128MB"},
		{"Shared_Buffers=64MB", "shared_buffers=64MB"},
		{"postgres.shared_buffers=64MB", "postgres.shared_buffers=128MB"},
		{"innodb.innodb-buffer-pool-size=64M", "innodb.innodb_buffer_pool_size=128M"},
	} {
		_, err := Route([]string{"postgres", "innodb"}, kvs)
		if err == nil || !strings.Contains(err.Error(), "given twice") {
			t.Errorf("Route(%q) = %v, want a refusal of the duplicate", kvs, err)
		}
	}
}

// Each server flavor names its cache setting and writes bytes as it reads
// them (--cache-size on a managed server).
func TestCacheSetting(t *testing.T) {
	for _, c := range []struct{ engine, key, value string }{
		{"postgres", "shared_buffers", "98304kB"},
		{"innodb", "innodb_buffer_pool_size", "100663296"},
		{"myrocks", "rocksdb_block_cache_size", "100663296"},
		{"pebble", "", "100663296"},
	} {
		if k, v := CacheSetting(c.engine), CacheValue(c.engine, 96<<20); k != c.key || v != c.value {
			t.Errorf("%s: %q=%q, want %q=%q", c.engine, k, v, c.key, c.value)
		}
	}
}
