package engine_test

import (
	"testing"

	"rumbench/internal/engine"
	"rumbench/internal/model"
)

func TestOptionDiff(t *testing.T) {
	defs := []model.Option{{Key: "cache_size", Default: "256MB"}, {Key: "compression", Default: "snappy"}, {Key: "sync", Default: "false"}, {Key: "unused", Default: "x"}}
	d := engine.OptionDiff(map[string]string{"cache_size": "268435456", "compression": "zstd", "sync": "true"}, defs, "test")
	want := []model.SettingDiff{{Key: "compression", Value: "zstd", Default: "snappy"}, {Key: "sync", Value: "true", Default: "false"}}
	if len(d.Settings) != len(want) {
		t.Fatalf("diff %+v, want %+v", d.Settings, want)
	}
	for i := range want {
		if d.Settings[i] != want[i] {
			t.Errorf("diff[%d] = %+v, want %+v", i, d.Settings[i], want[i])
		}
	}
	if d := engine.OptionDiff(map[string]string{"cache_size": "256MiB"}, defs, "test"); d.Settings == nil || len(d.Settings) != 0 {
		t.Errorf("defaults give %+v, want an empty (not nil) diff", d.Settings)
	}
}

func TestWithDefault(t *testing.T) {
	defs := []model.Option{{Key: "compression", Default: "snappy"}, {Key: "bottommost_compression", Default: "same"}}
	got := engine.WithDefault(defs, "bottommost_compression", "snappy")
	if got[1].Default != "snappy" || defs[1].Default != "same" {
		t.Errorf("WithDefault gave %+v and left the table %+v; want the resolved default in a copy", got, defs)
	}
	if d := engine.OptionDiff(map[string]string{"compression": "snappy", "bottommost_compression": "snappy"}, got, "test"); len(d.Settings) != 0 {
		t.Errorf("bottommost_compression resolved to the compression in effect is in the diff: %+v", d.Settings)
	}
}
