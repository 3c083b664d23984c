//go:build wiredtiger

package wiredtiger

import (
	"testing"

	"rumbench/internal/enginetest"
	"rumbench/internal/model"
)

// TestValidateConfig: bad settings are refused without opening anything.
func TestValidateConfig(t *testing.T) {
	enginetest.CheckConfigs(t, []enginetest.ConfigCase{
		{Engine: "wiredtiger", Config: model.Config{}, Want: ""},
		{Engine: "wiredtiger", Config: model.Config{Options: map[string]string{"sync": "maybe"}}, Want: "sync"},
		{Engine: "wiredtiger", Config: model.Config{Options: map[string]string{"eviction_dirty_target": "30", "eviction_dirty_trigger": "60"}}, Want: ""},
		{Engine: "wiredtiger", Config: model.Config{Options: map[string]string{"eviction_dirty_target": "95"}}, Want: "trigger must be above the target"},
		{Engine: "wiredtiger", Config: model.Config{Options: map[string]string{"eviction_dirty_target": "0"}}, Want: "eviction_dirty_target"},
		{Engine: "wiredtiger", Config: model.Config{Options: map[string]string{"eviction_threads": "many"}}, Want: "eviction_threads"},
	})
}
