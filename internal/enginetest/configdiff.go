package enginetest

import (
	"context"
	"testing"

	"rumbench/internal/engine"
	"rumbench/internal/engineopt"
	"rumbench/internal/model"
)

// ConfigDiff checks an embedded engine's model.ConfigDiffer: opened with
// its defaults (--cache-size's default included) it reports an empty diff,
// and opened with changed (option: value) it reports exactly those options,
// with the value it runs with (want) and a default it differs from.
func ConfigDiff(t *testing.T, name string, changed, want map[string]string) {
	t.Helper()
	ctx := context.Background()
	diff := func(opts map[string]string) *model.ConfigDiff {
		t.Helper()
		db, err := engine.Open(ctx, name, model.Config{DataDir: t.TempDir(), Options: opts})
		if err != nil {
			t.Fatalf("open %s with %v: %v", name, opts, err)
		}
		defer db.Close()
		cd, ok := db.(model.ConfigDiffer)
		if !ok {
			t.Fatalf("%s does not implement model.ConfigDiffer", name)
		}
		d, err := cd.ConfigDiff(ctx)
		if err != nil {
			t.Fatalf("%s: ConfigDiff: %v", name, err)
		}
		if d.Source == "" || d.Settings == nil {
			t.Fatalf("%s: ConfigDiff %+v: want a source and a non-nil list", name, d)
		}
		return d
	}
	if d := diff(nil); len(d.Settings) != 0 {
		t.Errorf("%s with its defaults reports a diff: %+v", name, d.Settings)
	}
	d := diff(changed)
	if len(d.Settings) != len(want) {
		t.Errorf("%s with %v: diff %+v, want the keys of %v", name, changed, d.Settings, want)
	}
	for k, v := range want {
		if got, ok := d.Get(k); !ok || got != v {
			t.Errorf("%s with %v: diff has %s=%q (%v), want %q", name, changed, k, got, ok, v)
		}
	}
	for _, s := range d.Settings {
		if s.Default == "" || engineopt.SameValue(s.Value, s.Default) {
			t.Errorf("%s: %s=%q differs from no default (%q)", name, s.Key, s.Value, s.Default)
		}
	}
}
