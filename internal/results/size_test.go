package results

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// A bundle written before disk_bytes has only size_bytes (the data dir's
// allocation, for a server its whole data dir): Read keeps it readable as
// the on-disk footprint, labelled as what it was, and its null reason
// follows it; the engine's size stays the live size.
func TestReadMapsLegacySizeBytes(t *testing.T) {
	dir := t.TempDir()
	write := bundleFileWriter(t, dir)
	write(RunFile, map[string]any{"schema_version": SchemaVersion, "steps": []string{"l.i0", "l.x"}})
	write(filepath.Join(StepsDir, "l.i0.json"), map[string]any{"step": "l.i0", "engine_size_bytes": 9174063,
		"metrics": map[string]any{"size_bytes": 516775936, "space_amp": 41.01, "space_amp_source": "data_dir"}})
	write(filepath.Join(StepsDir, "l.x.json"), map[string]any{"step": "l.x", "engine_size_bytes": -1,
		"metrics": map[string]any{"size_bytes": nil, "null_reasons": map[string]string{"size_bytes": "no data dir"}}})
	b, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := b.Steps["l.i0"].Metrics
	if m.DiskBytes == nil || *m.DiskBytes != 516775936 || m.DiskSource != LegacyDiskSource || m.LegacySizeBytes != nil {
		t.Errorf("legacy size_bytes read as disk %v (%q), legacy %v", m.DiskBytes, m.DiskSource, m.LegacySizeBytes)
	}
	if b.Steps["l.i0"].EngineSize != 9174063 || m.SpaceAmp == nil || *m.SpaceAmp != 41.01 || m.SpaceAmpSource != "data_dir" {
		t.Errorf("live %d, space_amp %v (%s): want them as recorded", b.Steps["l.i0"].EngineSize, m.SpaceAmp, m.SpaceAmpSource)
	}
	x := b.Steps["l.x"].Metrics
	if x.DiskBytes != nil || x.NullReasons["disk_bytes"] != "no data dir" || x.NullReasons["size_bytes"] != "" {
		t.Errorf("null legacy size: disk %v, reasons %v", x.DiskBytes, x.NullReasons)
	}
}

// bundleFileWriter writes files of a hand-made bundle in dir (its steps
// directory made): write(name, v) stores v as JSON at dir/name.
func bundleFileWriter(t *testing.T, dir string) func(name string, v any) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, StepsDir), 0o755); err != nil {
		t.Fatal(err)
	}
	return func(name string, v any) {
		b, _ := json.Marshal(v)
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
