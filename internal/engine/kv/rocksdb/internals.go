//go:build rocksdb

package rocksdb

import (
	"context"
	"errors"

	"rumbench/internal/model"
)

var _ model.InternalsReporter = (*DB)(nil)

// Internals implements model.InternalsReporter with RocksDB's statistics
// tickers (cumulative since open, this process's DB only).
func (d *DB) Internals(context.Context) (model.Internals, error) {
	if d.Closed() {
		return model.Internals{}, errors.New("engine is closed")
	}
	raw, common := internalsFromTickers(d.st.opts.GetStatisticsString())
	if len(raw) == 0 {
		return model.Internals{}, errors.New("rocksdb: the statistics dump has none of the tickers internals are read from")
	}
	return model.Internals{Raw: raw, Common: common}, nil
}
