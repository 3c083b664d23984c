package sqlite

import (
	"testing"

	"rumbench/internal/enginetest"
	"rumbench/internal/model"
)

// TestValidateConfig: bad settings are refused without opening anything.
func TestValidateConfig(t *testing.T) {
	enginetest.CheckConfigs(t, []enginetest.ConfigCase{
		{Engine: "sqlite", Config: model.Config{}, Want: ""},
		{Engine: "sqlite", Config: model.Config{Options: map[string]string{"page_size": "1000"}}, Want: "page_size"},
		{Engine: "sqlite", Config: model.Config{Options: map[string]string{"busy_timeout": "soon"}}, Want: "busy_timeout"},
	})
}
