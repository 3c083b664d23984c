package sqlite

import (
	"context"

	"rumbench/internal/engine"
	"rumbench/internal/model"
)

var _ model.ConfigDiffer = (*DB)(nil)

// ConfigDiff implements model.ConfigDiffer: the settings SQLite was opened
// with (its pragmas; the page size and journal mode read back from the
// file) against the option table's defaults.
func (d *DB) ConfigDiff(context.Context) (*model.ConfigDiff, error) {
	return engine.OptionDiff(d.Info().Settings, Driver{}.Options(), "the pragmas the SQLite connections were opened with, against rumbench's sqlite option defaults"), nil
}
