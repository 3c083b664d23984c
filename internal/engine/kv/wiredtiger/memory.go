//go:build wiredtiger

package wiredtiger

import (
	"context"
	"errors"

	"rumbench/internal/model"
)

var (
	_ model.MemoryReporter = (*DB)(nil)
	_ model.CacheOption    = Driver{}
)

// CacheOption implements model.CacheOption.
func (Driver) CacheOption() string { return "cache_size" }

// Memory implements model.MemoryReporter: the cache size the connection
// runs with, from its statistics. WiredTiger has no write buffer apart from
// its cache: dirty pages are held in the cache until eviction or a
// checkpoint writes them.
func (d *DB) Memory(context.Context) (model.Memory, error) {
	if d.Closed() {
		return model.Memory{}, errors.New("engine is closed")
	}
	ss, err := d.st.get()
	if err != nil {
		return model.Memory{}, err
	}
	defer d.st.put(ss)
	m := model.Memory{CacheBytes: -1, CacheSource: `wiredtiger statistic "cache: maximum bytes configured"`,
		WriteBufferSource: "none apart from the cache (dirty pages stay in the cache until evicted or checkpointed)"}
	err = ss.stats("statistics:", func(desc string, val int64) {
		if desc == "cache: maximum bytes configured" {
			m.CacheBytes = val
		}
	})
	if err != nil {
		return model.Memory{}, err
	}
	if m.CacheBytes < 0 {
		return model.Memory{}, errors.New(`wiredtiger: no statistic "cache: maximum bytes configured"`)
	}
	return m, nil
}
