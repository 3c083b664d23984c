package postgres

import (
	"testing"

	"rumbench/internal/enginetest"
	"rumbench/internal/model"
)

// TestValidateConfig: bad settings are refused without opening anything.
func TestValidateConfig(t *testing.T) {
	enginetest.CheckConfigs(t, []enginetest.ConfigCase{
		{Engine: "postgres", Config: model.Config{DSN: "postgres://u@localhost:5432/"}, Want: ""},
		{Engine: "postgres", Config: model.Config{DSN: "::bad"}, Want: "--dsn"},
		{Engine: "postgres", Config: model.Config{DSN: "root@tcp(localhost:3306)/"}, Want: "MySQL DSN"},
		{Engine: "postgres", Config: model.Config{DSN: "postgres://u@localhost/", Options: map[string]string{"drop_database": "maybe"}}, Want: "drop_database"},
		{Engine: "postgres", Config: model.Config{DSN: "postgres://u@localhost/", Options: map[string]string{"client_io": "epoll"}}, Want: "client_io"},
		{Engine: "postgres", Config: model.Config{DSN: "postgres://u@localhost/", Options: map[string]string{"client_io": "netpoller"}}, Want: ""},
		{Engine: "postgres", Config: model.Config{DSN: "postgres://u@localhost/", Database: "bad name;"}, Want: "postgres"},
	})
}
