package shard

import (
	"database/sql"
	"fmt"

	sqleng "rumbench/internal/engine/sql"
	"rumbench/internal/model"
)

// CheckDriver refuses engines a sharded run cannot use: the shards must
// all reach one server, and the barrier table lives on it.
func CheckDriver(d model.Driver) error {
	if d.Kind() != model.Server {
		return fmt.Errorf("--shard: engine %s is embedded, and an embedded engine cannot be shared by processes on several hosts: use a server engine (postgres, or a MySQL-protocol one such as innodb)", d.Name())
	}
	if d.Name() == "mongodb" {
		return fmt.Errorf("--shard: engine mongodb is not supported (the shards' barrier table needs SQL): use postgres or a MySQL-protocol engine")
	}
	return nil
}

// ForDB returns the connection pool and dialect of an opened SQL server
// engine, where the barrier table is kept.
func ForDB(db model.DB) (*sql.DB, Flavor, error) {
	s, ok := db.(interface {
		SQL() *sql.DB
		Dialect() sqleng.Dialect
	})
	if !ok {
		return nil, 0, fmt.Errorf("--shard: engine %s has no SQL connection for the shards' barrier: use postgres or a MySQL-protocol engine", db.Info().Name)
	}
	switch s.Dialect().Name() {
	case "postgres":
		return s.SQL(), Postgres, nil
	case "mysql":
		return s.SQL(), MySQL, nil
	}
	return nil, 0, fmt.Errorf("--shard: engine %s (dialect %s) is not supported: use postgres or a MySQL-protocol engine", db.Info().Name, s.Dialect().Name())
}
