package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"rumbench/internal/model"
	"rumbench/internal/results"
)

// TestConfigDiffOldAndNew: bundles written before run.json had
// engine.config_diff still load and report (no diff recorded), and a bundle
// with one reads it back.
func TestConfigDiffOldAndNew(t *testing.T) {
	bs, err := Load([]string{"testdata/run1", "testdata/v1-release"})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bs {
		if b.Run.Engine.ConfigDiff != nil {
			t.Errorf("%s: an old bundle reads a config diff %+v", b.Dir, b.Run.Engine.ConfigDiff)
		}
	}
	rep, err := Build(bs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := rep.Markdown(&out); err != nil || out.Len() == 0 {
		t.Fatalf("old bundles do not report: %v", err)
	}
	// Their runs table is as it was: no column for what they lack.
	if h := rep.RunsTable().Headers; slices.Contains(h, "config diff") {
		t.Errorf("old bundles' runs table has a config diff column: %v", h)
	}

	// The same pebble bundle with a diff recorded.
	dir := filepath.Join(t.TempDir(), "pebble")
	if err := os.CopyFS(dir, os.DirFS("testdata/run1/pebble")); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "run.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var run map[string]any
	if err := json.Unmarshal(raw, &run); err != nil {
		t.Fatal(err)
	}
	run["engine"].(map[string]any)["config_diff"] = map[string]any{
		"source":   "test",
		"settings": []any{map[string]any{"key": "compression", "value": "zstd", "default": "snappy"}},
	}
	if raw, err = json.Marshal(run); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	nb, err := Load([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := nb[0].Run.Engine.ConfigDiff.Get("compression"); !ok || v != "zstd" {
		t.Errorf("config_diff read back as %+v", nb[0].Run.Engine.ConfigDiff)
	}
	if rep, err = Build(nb, Options{}); err != nil {
		t.Fatal(err)
	}
	if err := rep.Markdown(&out); err != nil {
		t.Fatalf("a bundle with a config diff does not report: %v", err)
	}
	// The runs table shows it in short beside the version; next to an old
	// bundle, that one's cell says it was not recorded.
	old, err := Load([]string{"testdata/run1/pebble"})
	if err != nil {
		t.Fatal(err)
	}
	if rep, err = Build(append(nb, old...), Options{}); err != nil {
		t.Fatal(err)
	}
	rt := rep.RunsTable()
	col := slices.Index(rt.Headers, "config diff")
	if col < 0 || rt.Headers[col-1] != "version" {
		t.Fatalf("runs table headers %v: want config diff after version", rt.Headers)
	}
	if got := []string{rt.Rows[0][col], rt.Rows[1][col]}; got[0] != "compression=zstd" || got[1] != "-" {
		t.Errorf("config diff cells %q, want compression=zstd and - (not recorded)", got)
	}
}

// TestConfigDiffText: several settings in key order, none, not recorded.
func TestConfigDiffText(t *testing.T) {
	d := &model.ConfigDiff{Settings: []model.SettingDiff{
		{Key: "innodb_page_size", Value: "8192", Default: "16384"},
		{Key: "innodb_lock_wait_timeout", Value: "1", Default: "50"},
	}}
	d.SortSettings()
	for _, c := range []struct {
		d    *model.ConfigDiff
		want string
	}{
		{d, "innodb_lock_wait_timeout=1 innodb_page_size=8192"},
		{&model.ConfigDiff{}, "defaults"},
		{nil, "-"},
	} {
		if got := configDiffText(c.d); got != c.want {
			t.Errorf("configDiffText(%+v) = %q, want %q", c.d, got, c.want)
		}
	}
}

// TestLabelsLeaveOutManagedAddress: two managed servers of one engine
// differ in their address by construction (a free port each), so it does
// not name them; two servers rumbench does not manage are told apart by it.
func TestLabelsLeaveOutManagedAddress(t *testing.T) {
	runs := func(managed bool) []*Run {
		var rs []*Run
		for i, addr := range []string{"tcp(127.0.0.1:4001)", "tcp(127.0.0.1:4002)"} {
			s := map[string]string{"address": addr}
			if managed {
				s["managed_port"] = addr[len(addr)-5 : len(addr)-1]
			}
			b := &results.Bundle{Run: results.Run{Label: []string{"a", "b"}[i]}}
			b.Run.Engine.Name, b.Run.Engine.Settings = "innodb", s
			rs = append(rs, &Run{Num: i + 1, Bundle: &Bundle{Bundle: b}})
		}
		labelRuns(rs)
		return rs
	}
	if rs := runs(true); rs[0].Label != "a" || rs[1].Label != "b" {
		t.Errorf("managed servers labelled %q, %q: want a, b", rs[0].Label, rs[1].Label)
	}
	if rs := runs(false); rs[0].Label != "a address=tcp(127.0.0.1:4001)" {
		t.Errorf("servers at two addresses labelled %q: want the address", rs[0].Label)
	}
}
