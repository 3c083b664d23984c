//go:build rocksdb

package rocksdb

import (
	"testing"

	"rumbench/internal/enginetest"
	"rumbench/internal/model"
)

// TestValidateConfig: bad settings are refused without opening anything.
func TestValidateConfig(t *testing.T) {
	enginetest.CheckConfigs(t, []enginetest.ConfigCase{
		{Engine: "rocksdb", Config: model.Config{}, Want: ""},
		{Engine: "rocksdb", Config: model.Config{Options: map[string]string{"block_cache_size": "abc"}}, Want: "block_cache_size"},
	})
}
