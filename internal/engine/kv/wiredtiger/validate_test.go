//go:build wiredtiger

package wiredtiger

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
		{"wiredtiger", model.Config{}, ""},
		{"wiredtiger", model.Config{Options: map[string]string{"sync": "maybe"}}, "sync"},
		{"wiredtiger", model.Config{Options: map[string]string{"eviction_dirty_target": "30", "eviction_dirty_trigger": "60"}}, ""},
		{"wiredtiger", model.Config{Options: map[string]string{"eviction_dirty_target": "95"}}, "trigger must be above the target"},
		{"wiredtiger", model.Config{Options: map[string]string{"eviction_dirty_target": "0"}}, "eviction_dirty_target"},
		{"wiredtiger", model.Config{Options: map[string]string{"eviction_threads": "many"}}, "eviction_threads"},
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
