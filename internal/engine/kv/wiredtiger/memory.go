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

// OwnMemoryBytes implements model.OwnMemory: 35 MB peak anonymous memory
// at the iobound preset (pad 256, 3 indexes) less 5.6 MB cache is 29.4 MB
// (the cache overshooting its size while eviction catches up, per-page
// structures, session and log buffers, allocator slack); rounded up with
// room for growth. The iobound preset's old rule (cache + 24 MB) left it
// 29 MB, and the OOM killer ended it.
func (Driver) OwnMemoryBytes() int64 { return 36 << 20 }

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
