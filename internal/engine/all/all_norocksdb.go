//go:build !rocksdb

package all

import (
	"rumbench/internal/engine"
	"rumbench/internal/model"
)

func init() {
	engine.RegisterUnbuilt(engine.Unbuilt{
		Name: "rocksdb", Family: model.LSM, Kind: model.Embedded,
		Reason: "build with -tags rocksdb (needs librocksdb-dev: scripts/deps.sh librocksdb-dev)",
	})
}
