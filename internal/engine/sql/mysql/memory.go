package mysql

import (
	"context"
	"fmt"

	"rumbench/internal/model"
)

var _ model.MemoryReporter = (*DB)(nil)

// Memory implements model.MemoryReporter from the server's variables: for
// InnoDB its buffer pool and log buffer, for MyRocks its block cache and
// the memtables of its default column family options (MyRocks' write
// buffer is rocksdb_db_write_buffer_size when set, else the column
// families' own).
func (db *DB) Memory(ctx context.Context) (model.Memory, error) {
	read := func(name string) (int64, error) {
		var n int64
		if err := db.SQL().QueryRowContext(ctx, "SELECT @@global."+name).Scan(&n); err != nil {
			return 0, fmt.Errorf("%s: read %s: %w", db.engine, name, err)
		}
		return n, nil
	}
	if db.engine == "ROCKSDB" {
		cache, err := read("rocksdb_block_cache_size")
		if err != nil {
			return model.Memory{}, err
		}
		wb, err := read("rocksdb_db_write_buffer_size")
		if err != nil {
			return model.Memory{}, err
		}
		m := model.Memory{CacheBytes: cache, CacheSource: "mariadb @@rocksdb_block_cache_size",
			WriteBufferBytes: wb, WriteBufferSource: "mariadb @@rocksdb_db_write_buffer_size (0: no limit over the column families' own write buffers)"}
		return m, nil
	}
	cache, err := read("innodb_buffer_pool_size")
	if err != nil {
		return model.Memory{}, err
	}
	lb, err := read("innodb_log_buffer_size")
	if err != nil {
		return model.Memory{}, err
	}
	return model.Memory{
		CacheBytes: cache, CacheSource: "mariadb @@innodb_buffer_pool_size",
		WriteBufferBytes: lb, WriteBufferSource: "mariadb @@innodb_log_buffer_size",
	}, nil
}
