package postgres

import (
	"context"
	"testing"

	"rumbench/internal/enginetest"
	"rumbench/internal/model"
)

func TestPGValue(t *testing.T) {
	for _, c := range []struct{ v, unit, want string }{
		{"16384", "8kB", "128MB"},
		{"1024", "8kB", "8MB"},
		{"65536", "kB", "64MB"},
		{"300", "s", "5min"},
		{"200", "ms", "200ms"},
		{"-1", "8kB", "-1"},
		{"on", "", "on"},
		{"0", "kB", "0"},
	} {
		if got := pgValue(c.v, c.unit); got != c.want {
			t.Errorf("pgValue(%q, %q) = %q, want %q", c.v, c.unit, got, c.want)
		}
	}
}

// TestConfigDiff: on the local server, the session setting rumbench gives
// its connections (synchronous_commit=off) is in the diff, read back from
// pg_settings with its origin, and none of the plumbing is.
func TestConfigDiff(t *testing.T) {
	tg := target(t, "rumbench_test_configdiff")
	tg.Options = map[string]string{"synchronous_commit": "off"}
	db := enginetest.OpenServer(t, tg)
	defer db.Close()
	d, err := db.(model.ConfigDiffer).ConfigDiff(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("diff: %+v", d.Settings)
	found := false
	for _, s := range d.Settings {
		if s.Key == "synchronous_commit" {
			found = s.Value == "off" && s.Default == "on" && s.Origin == "client"
		}
		if pgPlumbing(s.Key) || s.Key == "port" {
			t.Errorf("plumbing %s=%s is in the diff", s.Key, s.Value)
		}
	}
	if !found {
		t.Errorf("synchronous_commit=off (default on, from the client) is not in the diff %+v", d.Settings)
	}
}
