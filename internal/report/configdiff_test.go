package report

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
		if got := configDiffText(c.d, nil); got != c.want {
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

// innodbRun writes a copy of testdata/run1/pebble as a managed innodb
// variant's bundle: its settings and config diff in the shapes the managed
// server (server_opt.KEY as given, KEY as the server reported it) and the
// mysql engine (information_schema, value against default) write them.
func innodbRun(t *testing.T, dir, label string, settings map[string]string, diff [][3]string) string {
	t.Helper()
	d := filepath.Join(dir, label)
	if err := os.CopyFS(d, os.DirFS("testdata/run1/pebble")); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(d, "run.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var run map[string]any
	if err := json.Unmarshal(raw, &run); err != nil {
		t.Fatal(err)
	}
	st := map[string]string{"managed": "true", "managed_port": label, "address": "tcp(127.0.0.1:" + label + ")",
		"server_opt.innodb_buffer_pool_size": "268435456", "innodb_buffer_pool_size": "268435456"}
	maps.Copy(st, settings)
	var ds []any
	for _, s := range diff {
		ds = append(ds, map[string]any{"key": s[0], "value": s[1], "default": s[2], "origin": "COMMAND-LINE"})
	}
	run["label"] = label
	run["engine"] = map[string]any{"name": "innodb", "family": "btree", "kind": "server", "version": "10.11.19-MariaDB", "settings": st,
		"config_diff": map[string]any{"source": "information_schema.SYSTEM_VARIABLES (GLOBAL_VALUE against DEFAULT_VALUE)", "settings": ds}}
	if raw, err = json.Marshal(run); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestServerSettingShownOnce: a managed server's setting is recorded as
// given and as read back; the runs table names it once, by the value in
// effect, and marks the value asked for only when the server runs another
// (8k and 8192 are one value; 8k asked but 16384 running is not).
func TestServerSettingShownOnce(t *testing.T) {
	dir := t.TempDir()
	pool := []string{"innodb_buffer_pool_size", "268435456", "134217728"}
	dirs := []string{
		innodbRun(t, dir, "ib16", map[string]string{"server_opt.innodb_lock_wait_timeout": "7", "innodb_lock_wait_timeout": "7", "innodb_page_size": "16384"},
			[][3]string{[3]string(pool), {"innodb_lock_wait_timeout", "7", "50"}}),
		innodbRun(t, dir, "ib8", map[string]string{"server_opt.innodb_page_size": "8k", "innodb_page_size": "8192"},
			[][3]string{[3]string(pool), {"innodb_page_size", "8192", "16384"}}),
		// A kept server dir made with 16k pages: the server runs 16384.
		innodbRun(t, dir, "ib8old", map[string]string{"server_opt.innodb_page_size": "8k", "innodb_page_size": "16384"},
			[][3]string{[3]string(pool)}),
		innodbRun(t, dir, "ib4", map[string]string{"server_opt.innodb_page_size": "4k", "innodb_page_size": "8192"},
			[][3]string{[3]string(pool), {"innodb_page_size", "8192", "16384"}}),
	}
	bs, err := Load(dirs)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Build(bs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rt := rep.RunsTable()
	label, diff := slices.Index(rt.Headers, "label"), slices.Index(rt.Headers, "config diff")
	want := [][2]string{
		{"ib16 innodb_lock_wait_timeout=7 innodb_page_size=16384",
			"innodb_buffer_pool_size=268435456 innodb_lock_wait_timeout=7"},
		{"ib8 innodb_lock_wait_timeout=— innodb_page_size=8192",
			"innodb_buffer_pool_size=268435456 innodb_page_size=8192"},
		{"ib8old innodb_lock_wait_timeout=— innodb_page_size=16384 (asked 8k)",
			"innodb_buffer_pool_size=268435456 innodb_page_size=16384 (asked 8k)"},
		{"ib4 innodb_lock_wait_timeout=— innodb_page_size=8192 (asked 4k)",
			"innodb_buffer_pool_size=268435456 innodb_page_size=8192 (asked 4k)"},
	}
	for i, w := range want {
		if got := [2]string{rt.Rows[i][label], rt.Rows[i][diff]}; got != w {
			t.Errorf("run %d: label and config diff\n%q\nwant\n%q", i+1, got, w)
		}
	}
	var md bytes.Buffer
	if err := rep.Markdown(&md); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String(), "server_opt.") {
		t.Errorf("the report names a setting as given beside its value read back:\n%s", md.String())
	}
}

// TestAskedOther: a setting given and read back differs only when the two
// mean other values; a bare number beside a value with a unit is in the
// server's own unit, which the bundle does not hold, so it is not marked.
func TestAskedOther(t *testing.T) {
	for _, c := range []struct {
		given, running string
		want           bool
	}{
		{"8k", "8192", false},
		{"64M", "67108864", false},
		{"OFF", "off", false},
		{"0", "OFF", false},
		{"7", "7", false},
		{"900s", "15min", false},
		{"8MB", "8MB", false},
		{"4096", "32MB", false}, // PostgreSQL shared_buffers in 8kB pages
		{"900", "15min", false}, // checkpoint_timeout in seconds
		{"8k", "16384", true},
		{"7", "50", true},
		{"2", "OFF", true},
		{"10min", "5min", true},
		{"kZSTD", "kNoCompression", true},
		{"8MB", "", true}, // not read back
	} {
		if got := askedOther(c.given, c.running); got != c.want {
			t.Errorf("askedOther(%q, %q) = %v, want %v", c.given, c.running, got, c.want)
		}
	}
}
