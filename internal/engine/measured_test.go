package engine

import (
	"testing"

	"rumbench/internal/model"
)

func TestMeasuredSettings(t *testing.T) {
	for _, c := range []struct {
		info model.Info
		want map[string]string
	}{
		{model.Info{Name: "pebble", Settings: map[string]string{"sync": "false"}}, map[string]string{SettingFlushOnCommit: "no"}},
		{model.Info{Name: "rocksdb", Settings: map[string]string{"sync": "true"}}, map[string]string{SettingFlushOnCommit: "yes"}},
		{model.Info{Name: "sqlite", Settings: map[string]string{"synchronous": "normal", "journal_mode": "wal"}}, map[string]string{SettingFlushOnCommit: "no"}},
		{model.Info{Name: "sqlite", Settings: map[string]string{"synchronous": "full", "journal_mode": "wal"}}, map[string]string{SettingFlushOnCommit: "yes"}},
		{model.Info{Name: "postgres", Settings: map[string]string{"synchronous_commit": "on", "fsync": "on", "full_page_writes": "on"}},
			map[string]string{SettingFlushOnCommit: "yes", SettingTornPageProtection: "on"}},
		{model.Info{Name: "postgres", Settings: map[string]string{"synchronous_commit": "off", "fsync": "on"}}, map[string]string{SettingFlushOnCommit: "no"}},
		{model.Info{Name: "innodb", Settings: map[string]string{"innodb_flush_log_at_trx_commit": "2", "log_bin": "OFF", "innodb_doublewrite": "ON"}},
			map[string]string{SettingFlushOnCommit: "no", SettingBinlog: "off", SettingTornPageProtection: "on"}},
		{model.Info{Name: "myrocks", Settings: map[string]string{"rocksdb_flush_log_at_trx_commit": "1", "log_bin": "ON"}},
			map[string]string{SettingFlushOnCommit: "yes", SettingBinlog: "on"}},
		{model.Info{Name: "null"}, nil},
	} {
		got := MeasuredSettings(c.info)
		if len(got) != len(c.want) {
			t.Errorf("%s %v: got %v, want %v", c.info.Name, c.info.Settings, got, c.want)
			continue
		}
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("%s %v: %s = %q, want %q", c.info.Name, c.info.Settings, k, got[k], v)
			}
		}
	}
}
