package postgres

import (
	"context"
	"fmt"

	"rumbench/internal/model"
)

var _ model.MemoryReporter = (*DB)(nil)

// Memory implements model.MemoryReporter: the server's shared_buffers (its
// buffer cache) and wal_buffers, from pg_settings (in blocks of their
// unit's size).
func (d *DB) Memory(ctx context.Context) (model.Memory, error) {
	read := func(name string) (int64, error) {
		var n int64
		err := d.SQL().QueryRowContext(ctx, `SELECT setting::bigint * pg_size_bytes(coalesce(nullif(unit, ''), '1B'))
			FROM pg_settings WHERE name = $1`, name).Scan(&n)
		if err != nil {
			return 0, fmt.Errorf("postgres: read %s: %w", name, err)
		}
		return n, nil
	}
	cache, err := read("shared_buffers")
	if err != nil {
		return model.Memory{}, err
	}
	wal, err := read("wal_buffers")
	if err != nil {
		return model.Memory{}, err
	}
	return model.Memory{
		CacheBytes: cache, CacheSource: "postgres pg_settings shared_buffers",
		WriteBufferBytes: wal, WriteBufferSource: "postgres pg_settings wal_buffers",
	}, nil
}
