package engineopt

import (
	"errors"
	"reflect"
	"testing"

	"rumbench/internal/model"
)

// testSettings receives one option of each kind.
type testSettings struct {
	size, bounded int64
	sync          bool
	n             int
	f             float64
	mode, text    string
	custom        string
}

func testTable(s *testSettings) Table {
	return Table{
		Size(&s.size, "cache_size", "8MB", "cache"),
		SizeIn(&s.bounded, "memtable_size", "64MB", "memtable", 64<<10, 4<<30-1, "a size from 64KB to below 4GB"),
		Bool(&s.sync, "sync", "false", "fsync"),
		Int(&s.n, "threads", "4", "threads", 1, 64),
		Float(&s.f, "fill", "0.5", "fill", 0.1, 1),
		Choice(&s.mode, "compression", "snappy", "compression", "none", "snappy", "zstd"),
		Text(&s.text, "synchronous_commit", "", "passed on"),
		Func("leaf", "auto", "custom", func(raw string) error {
			if raw != "auto" && raw != "4k" {
				return errors.New("leaf: want auto or 4k")
			}
			s.custom = raw
			return nil
		}),
	}
}

func TestTableListsAndDefaults(t *testing.T) {
	tbl := testTable(&testSettings{})
	got := tbl.Options()
	if len(got) != 8 || got[0] != (model.Option{Key: "cache_size", Default: "8MB", Help: "cache"}) || got[7].Key != "leaf" {
		t.Errorf("Options() = %+v", got)
	}
	if d := tbl.Defaults(); d["memtable_size"] != "64MB" || d["synchronous_commit"] != "" || len(d) != 8 {
		t.Errorf("Defaults() = %v", d)
	}
	// Defaults parse, into the typed fields.
	var s testSettings
	if err := testTable(&s).Parse(nil); err != nil {
		t.Fatal(err)
	}
	want := testSettings{size: 8 << 20, bounded: 64 << 20, n: 4, f: 0.5, mode: "snappy", custom: "auto"}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("defaults parsed to %+v, want %+v", s, want)
	}
}

func TestTableParsesGivenValues(t *testing.T) {
	var s testSettings
	err := testTable(&s).Parse(map[string]string{
		"cache_size": "1GiB", "memtable_size": "1MB", "sync": "ON", "threads": "64", "fill": "1",
		"compression": "ZSTD", "synchronous_commit": "off", "leaf": "4k", "other_engines_key": "x",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := testSettings{size: 1 << 30, bounded: 1 << 20, sync: true, n: 64, f: 1, mode: "zstd", text: "off", custom: "4k"}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("parsed %+v, want %+v", s, want)
	}
}

func TestTableRefusesBadValues(t *testing.T) {
	for _, tc := range []struct {
		key, val, want string
	}{
		{"cache_size", "lots", `engine option cache_size="lots": want a byte size such as 1048576, 64MB or 1GiB`},
		{"memtable_size", "4GB", `engine option memtable_size="4GB": want a size from 64KB to below 4GB`},
		{"memtable_size", "1KB", `engine option memtable_size="1KB": want a size from 64KB to below 4GB`},
		{"sync", "maybe", `engine option sync="maybe": want true or false`},
		{"threads", "0", `engine option threads="0": want an integer from 1 to 64`},
		{"threads", "2.5", `engine option threads="2.5": want an integer from 1 to 64`},
		{"fill", "1.5", `engine option fill="1.5": want a number from 0.1 to 1`},
		{"compression", "lz4", `engine option compression="lz4": want one of none, snappy, zstd`},
		{"leaf", "8k", `leaf: want auto or 4k`},
	} {
		var s testSettings
		err := testTable(&s).Parse(map[string]string{tc.key: tc.val})
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s=%s: error %v, want %q", tc.key, tc.val, err, tc.want)
		}
	}
	// The first bad value in table order is the one named.
	err := testTable(&testSettings{}).Parse(map[string]string{"compression": "lz4", "sync": "maybe"})
	if err == nil || err.Error() != `engine option sync="maybe": want true or false` {
		t.Errorf("two bad values: %v, want sync's error (sync is listed first)", err)
	}
}
