//go:build !wiredtiger

package all

import (
	"rumbench/internal/engine"
	"rumbench/internal/model"
)

func init() {
	engine.RegisterUnbuilt(engine.Unbuilt{
		Name: "wiredtiger", Family: model.CoWBTree, Kind: model.Embedded,
		Reason: "build with -tags wiredtiger (needs libwiredtiger-dev: scripts/deps.sh libwiredtiger-dev)",
	})
}
