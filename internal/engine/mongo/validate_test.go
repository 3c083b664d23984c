package mongo

import (
	"strings"
	"testing"

	"rumbench/internal/engine"
	"rumbench/internal/enginetest"
	"rumbench/internal/model"
)

// TestValidateConfig: bad settings are refused without connecting
// (engine.CheckConfig runs before any engine of a run starts).
func TestValidateConfig(t *testing.T) {
	enginetest.CheckConfigs(t, []enginetest.ConfigCase{
		{Engine: "mongodb", Config: model.Config{DSN: "mongodb://u@localhost:27017/"}, Want: ""},
		{Engine: "mongodb", Config: model.Config{DSN: "mongodb+srv://u:Sekr3t@cluster0.example.net/"}, Want: ""},
		{Engine: "mongodb", Config: model.Config{DSN: "postgres://u@localhost:5432/"}, Want: "MongoDB URI"},
		{Engine: "mongodb", Config: model.Config{DSN: "root@tcp(localhost:3306)/"}, Want: "MongoDB URI"},
		{Engine: "mongodb", Config: model.Config{DSN: "mongodb://localhost:notaport/"}, Want: "--dsn"},
		{Engine: "mongodb", Config: model.Config{DSN: "mongodb://localhost/", Database: "bad name;"}, Want: "bad --database"},
		{Engine: "mongodb", Config: model.Config{DSN: "mongodb://localhost/", Options: map[string]string{"w": "majority", "j": "true", "read_concern": "majority"}}, Want: ""},
		{Engine: "mongodb", Config: model.Config{DSN: "mongodb://localhost/", Options: map[string]string{"w": "2"}}, Want: ""},
		{Engine: "mongodb", Config: model.Config{DSN: "mongodb://localhost/", Options: map[string]string{"w": "0"}}, Want: "w=0"},
		{Engine: "mongodb", Config: model.Config{DSN: "mongodb://localhost/", Options: map[string]string{"w": "most"}}, Want: "bad w"},
		{Engine: "mongodb", Config: model.Config{DSN: "mongodb://localhost/", Options: map[string]string{"j": "yes please"}}, Want: "bad j"},
		{Engine: "mongodb", Config: model.Config{DSN: "mongodb://localhost/", Options: map[string]string{"read_concern": "strong"}}, Want: "read_concern"},
		{Engine: "mongodb", Config: model.Config{DSN: "mongodb://localhost/", Options: map[string]string{"hint": "maybe"}}, Want: "hint"},
		{Engine: "mongodb", Config: model.Config{DSN: "mongodb://localhost/", Options: map[string]string{"drop_database": "maybe"}}, Want: "drop_database"},
		{Engine: "mongodb", Config: model.Config{DSN: "mongodb://localhost/", Options: map[string]string{"synchronous_commit": "off"}}, Want: "no setting"},
	})
}

// TestBadDSNHidesPassword: a bad DSN's error never shows its password.
func TestBadDSNHidesPassword(t *testing.T) {
	d, err := engine.Lookup("mongodb")
	if err != nil {
		t.Fatal(err)
	}
	_, err = engine.CheckConfig(d, model.Config{DSN: "mongodb://u:Sekr3t@localhost:27017/?authMechanism=NOPE"})
	if err == nil || strings.Contains(err.Error(), "Sekr3t") {
		t.Errorf("bad DSN error %v", err)
	}
	_, err = engine.CheckConfig(d, model.Config{DSN: "mysql://u:Sekr3t@localhost:3306/"})
	if err == nil || strings.Contains(err.Error(), "Sekr3t") {
		t.Errorf("foreign DSN error %v", err)
	}
}
