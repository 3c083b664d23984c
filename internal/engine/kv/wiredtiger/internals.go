//go:build wiredtiger

package wiredtiger

import (
	"context"
	"errors"

	"rumbench/internal/model"
)

var _ model.InternalsReporter = (*DB)(nil)

// internalStats are the connection statistics an engine's internals are
// read from, by their WiredTiger descriptions, with the raw names recorded.
var internalStats = map[string]string{
	"cache: pages read into cache":                             "pages_read_into_cache",
	"cache: pages requested from the cache":                    "pages_requested",
	"log: log bytes written":                                   "log_bytes_written",
	"block-manager: bytes written":                             "block_bytes_written",
	"block-manager: bytes read":                                "block_bytes_read",
	"cache: pages written from cache":                          "pages_written_from_cache",
	"cache: application thread time waiting for cache (usecs)": "app_wait_for_cache_us",
	"transaction: transaction checkpoints":                     "checkpoints",
}

// Internals implements model.InternalsReporter with the connection's
// statistics (statistics=(fast); cumulative since open): pages read into
// the cache (cache_miss), log bytes (log_kb), the block manager's bytes
// written (bg_write_kb: checkpoints and eviction; the log is written apart)
// and the time application threads waited for room in the cache (stall_s).
func (d *DB) Internals(context.Context) (model.Internals, error) {
	if d.Closed() {
		return model.Internals{}, errors.New("engine is closed")
	}
	ss, err := d.st.get()
	if err != nil {
		return model.Internals{}, err
	}
	defer d.st.put(ss)
	raw := map[string]float64{}
	err = ss.stats("statistics:", func(desc string, val int64) {
		if name, ok := internalStats[desc]; ok {
			raw[name] = float64(val)
		}
	})
	if err != nil {
		return model.Internals{}, err
	}
	common := map[string]float64{}
	for name, from := range map[string]string{model.InternalCacheMiss: "pages_read_into_cache", model.InternalLogKB: "log_bytes_written",
		model.InternalBgWriteKB: "block_bytes_written", model.InternalStallS: "app_wait_for_cache_us"} {
		v, ok := raw[from]
		if !ok {
			continue
		}
		switch name {
		case model.InternalLogKB, model.InternalBgWriteKB:
			v /= 1024
		case model.InternalStallS:
			v /= 1e6
		}
		common[name] = v
	}
	return model.Internals{Raw: raw, Common: common}, nil
}
