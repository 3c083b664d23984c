package engine

import (
	"strings"

	"rumbench/internal/model"
)

// Normalised settings that decide what a run measures, compared across the
// engines of one report: a comparison where one engine fsyncs at every
// commit and another does not, or one writes a binlog, is not like for like.
const (
	// SettingFlushOnCommit: "yes" when a commit waits for its log to reach
	// stable storage (fsync), "no" when it reaches the OS (or less).
	SettingFlushOnCommit = "flush_on_commit"
	// SettingBinlog: "on" when the server also writes a replication log.
	SettingBinlog = "binlog"
	// SettingTornPageProtection: "on" when pages are written twice to
	// survive torn writes (InnoDB doublewrite, PostgreSQL full_page_writes).
	SettingTornPageProtection = "torn_page_protection"
)

// MeasuredSettings derives the normalised settings from an engine's
// recorded settings. Keys an engine has no equivalent for are absent.
func MeasuredSettings(info model.Info) map[string]string {
	s := info.Settings
	out := map[string]string{}
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	on := func(v string) string {
		switch strings.ToLower(v) {
		case "on", "1", "true", "yes":
			return "on"
		}
		return "off"
	}
	switch info.Name {
	case "pebble", "bbolt", "rocksdb", "wiredtiger":
		if v, ok := s["sync"]; ok {
			out[SettingFlushOnCommit] = yes(v == "true")
		}
	case "sqlite":
		// In WAL mode NORMAL syncs at checkpoints, not at commits.
		if v, ok := s["synchronous"]; ok {
			v = strings.ToLower(v)
			wal := strings.EqualFold(s["journal_mode"], "wal")
			out[SettingFlushOnCommit] = yes(v == "full" || v == "extra" || (v == "normal" && !wal) || v == "2" || v == "3")
		}
	case "postgres":
		if v, ok := s["synchronous_commit"]; ok {
			// "local", "on", "remote_*" all wait for the local flush.
			out[SettingFlushOnCommit] = yes(on(s["fsync"]) == "on" && strings.ToLower(v) != "off")
		}
		if v, ok := s["full_page_writes"]; ok {
			out[SettingTornPageProtection] = on(v)
		}
	case "innodb", "myrocks":
		key := "innodb_flush_log_at_trx_commit"
		if info.Name == "myrocks" {
			key = "rocksdb_flush_log_at_trx_commit"
		}
		if v, ok := s[key]; ok {
			out[SettingFlushOnCommit] = yes(v == "1")
		}
		if v, ok := s["log_bin"]; ok {
			out[SettingBinlog] = on(v)
		}
		if v, ok := s["innodb_doublewrite"]; ok && info.Name == "innodb" {
			out[SettingTornPageProtection] = on(v)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
