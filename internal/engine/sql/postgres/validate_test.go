package postgres

import (
	"strings"
	"testing"

	"rumbench/internal/engine"
	"rumbench/internal/model"
)

// TestValidateConfig checks that bad settings are refused without opening
// anything (engine.CheckConfig runs before any engine of a run starts).
func TestValidateConfig(t *testing.T) {
	cases := []struct {
		engine string
		cfg    model.Config
		want   string // "" = valid
	}{
		{"postgres", model.Config{DSN: "postgres://u@localhost:5432/"}, ""},
		{"postgres", model.Config{DSN: "::bad"}, "--dsn"},
		{"postgres", model.Config{DSN: "root@tcp(localhost:3306)/"}, "MySQL DSN"},
		{"postgres", model.Config{DSN: "postgres://u@localhost/", Options: map[string]string{"drop_database": "maybe"}}, "drop_database"},
		{"postgres", model.Config{DSN: "postgres://u@localhost/", Options: map[string]string{"client_io": "epoll"}}, "client_io"},
		{"postgres", model.Config{DSN: "postgres://u@localhost/", Options: map[string]string{"client_io": "netpoller"}}, ""},
		{"postgres", model.Config{DSN: "postgres://u@localhost/", Database: "bad name;"}, "postgres"},
	}
	for _, c := range cases {
		d, err := engine.Lookup(c.engine)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := d.(model.ConfigValidator); !ok {
			t.Fatalf("%s does not implement model.ConfigValidator", c.engine)
		}
		_, err = engine.CheckConfig(d, c.cfg)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %+v: %v", c.engine, c.cfg, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s %+v: error %v, want one mentioning %q", c.engine, c.cfg, err, c.want)
		}
	}
}
