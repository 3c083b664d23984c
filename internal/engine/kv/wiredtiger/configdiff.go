//go:build wiredtiger

package wiredtiger

import (
	"context"
	"strconv"

	"rumbench/internal/engine"
	"rumbench/internal/model"
)

var _ model.ConfigDiffer = (*DB)(nil)

// ConfigDiff implements model.ConfigDiffer: the configuration WiredTiger
// was opened with (wiredtiger_open and the tables' create strings, as the
// driver built them; the block compressor as the data dir has it) against
// the option table's defaults; leaf_page_max's default "auto" is what auto
// gives for the cache in effect.
func (d *DB) ConfigDiff(context.Context) (*model.ConfigDiff, error) {
	eff := d.Info().Settings
	defs := Driver{}.Options()
	if cache, err := strconv.ParseInt(eff["cache_size"], 10, 64); err == nil {
		if n, _, err := leafPageMax("auto", cache); err == nil {
			defs = engine.WithDefault(defs, "leaf_page_max", strconv.FormatInt(n, 10))
		}
	}
	return engine.OptionDiff(eff, defs, "the wiredtiger_open and table configuration the store was opened with, against rumbench's wiredtiger option defaults"), nil
}
