//go:build !rocksdb

package all

import (
	"rumbench/internal/engine"
	"rumbench/internal/model"
)

func init() {
	engine.RegisterUnbuilt(engine.Unbuilt{
		Name: "rocksdb", Family: model.LSM, Kind: model.Embedded,
		Reason: "a cgo engine left out of this build: ./rumbench.sh run --engine rocksdb builds it in (installing librocksdb-dev), or scripts/build.sh rocksdb",
	})
}
