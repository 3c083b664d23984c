// Package all links every engine compiled into this build into the registry.
package all

import (
	_ "rumbench/internal/engine/kv/bbolt"
	_ "rumbench/internal/engine/kv/pebble"
	_ "rumbench/internal/engine/mongo"
	_ "rumbench/internal/engine/null"
	_ "rumbench/internal/engine/sql/mysql"
	_ "rumbench/internal/engine/sql/postgres"
	_ "rumbench/internal/engine/sql/sqlite"
)
