package pebble

import (
	"testing"

	"rumbench/internal/enginetest"
	"rumbench/internal/model"
)

// TestValidateConfig: bad settings are refused without opening anything.
func TestValidateConfig(t *testing.T) {
	enginetest.CheckConfigs(t, []enginetest.ConfigCase{
		{Engine: "pebble", Config: model.Config{}, Want: ""},
		{Engine: "pebble", Config: model.Config{Options: map[string]string{"cache_size": "abc"}}, Want: "cache_size"},
		{Engine: "pebble", Config: model.Config{Options: map[string]string{"compression": "lz77"}}, Want: "compression"},
	})
}
