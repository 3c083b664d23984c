//go:build !wiredtiger

package all

import (
	"rumbench/internal/engine"
	"rumbench/internal/model"
)

func init() {
	engine.RegisterUnbuilt(engine.Unbuilt{
		Name: "wiredtiger", Family: model.CoWBTree, Kind: model.Embedded,
		Reason: "a cgo engine left out of this build: ./rumbench.sh run --engine wiredtiger builds it in (installing libwiredtiger-dev), or scripts/build.sh wiredtiger",
	})
}
