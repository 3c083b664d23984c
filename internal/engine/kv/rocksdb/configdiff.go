//go:build rocksdb

package rocksdb

import (
	"context"

	"rumbench/internal/engine"
	"rumbench/internal/model"
)

var _ model.ConfigDiffer = (*DB)(nil)

// ConfigDiff implements model.ConfigDiffer: the options RocksDB was opened
// with (as the driver set them on its Options) against the option table's
// defaults; bottommost_compression's default "same" is the compression in
// effect.
func (d *DB) ConfigDiff(context.Context) (*model.ConfigDiff, error) {
	eff := d.Info().Settings
	defs := engine.WithDefault(Driver{}.Options(), "bottommost_compression", eff["compression"])
	return engine.OptionDiff(eff, defs, "the rocksdb Options the store was opened with, against rumbench's rocksdb option defaults"), nil
}
