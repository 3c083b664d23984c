package bbolt

import (
	"testing"

	"rumbench/internal/enginetest"
	"rumbench/internal/model"
)

// TestValidateConfig: bad settings are refused without opening anything.
func TestValidateConfig(t *testing.T) {
	enginetest.CheckConfigs(t, []enginetest.ConfigCase{
		{Engine: "bbolt", Config: model.Config{}, Want: ""},
		{Engine: "bbolt", Config: model.Config{Options: map[string]string{"sync": "maybe"}}, Want: "sync"},
	})
}
