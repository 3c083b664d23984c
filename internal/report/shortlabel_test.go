package report

import (
	"testing"

	"rumbench/internal/results"
)

// TestShortNames: a run whose label (with the settings that tell it apart)
// is longer than charts and narrow tables hold is named there by its
// variant's label and number; a short label is kept whole.
func TestShortNames(t *testing.T) {
	mk := func(num int, variant, label string) *Run {
		b := &Bundle{Bundle: &results.Bundle{Run: results.Run{Label: variant}}}
		r := &Run{Num: num, Label: label, Bundle: b}
		r.setShort()
		return r
	}
	long := mk(1, "rocks-none", "rocks-none rocksdb_default_cf_options=compression=kNoCompression")
	short := mk(2, "pebble", "pebble rows=1000")
	if runName(long) != "#1 rocks-none" || runName(short) != "#2 pebble rows=1000" {
		t.Errorf("runName: %q, %q", runName(long), runName(short))
	}
	if long.Label != "rocks-none rocksdb_default_cf_options=compression=kNoCompression" {
		t.Errorf("the whole label is kept for the runs table: %q", long.Label)
	}
}
