package bbolt

import (
	"context"
	"maps"
	"strconv"

	"rumbench/internal/engine"
	"rumbench/internal/model"
)

var _ model.ConfigDiffer = (*DB)(nil)

// ConfigDiff implements model.ConfigDiffer: the options bbolt was opened
// with, read back from the open bbolt.DB where it keeps them (sync,
// freelist) and from the store (fill percent), against the option table's
// defaults.
func (d *DB) ConfigDiff(context.Context) (*model.ConfigDiff, error) {
	eff := maps.Clone(d.Info().Settings)
	db := d.st.db
	eff["sync"] = strconv.FormatBool(!db.NoSync)
	eff["no_freelist_sync"] = strconv.FormatBool(db.NoFreelistSync)
	eff["freelist_type"] = string(db.FreelistType)
	eff["fill_percent"] = strconv.FormatFloat(d.st.fill, 'g', -1, 64)
	return engine.OptionDiff(eff, Driver{}.Options(), "bbolt.DB the file was opened with, against rumbench's bbolt option defaults"), nil
}
