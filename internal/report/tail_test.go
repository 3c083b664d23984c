package report

import (
	"strings"
	"testing"

	"rumbench/internal/results"
)

// What an engine wrote after its last step is said beside the runs, not
// dropped; a bundle without a tail says nothing.
func TestTailNote(t *testing.T) {
	if n := tailNote(nil); n != "" {
		t.Errorf("no tail: %q, want none", n)
	}
	wkb, flushes := 27648.0, int64(31)
	got := tailNote(&results.Tail{Seconds: 0.25, DevWKB: &wkb, DevFlushes: &flushes})
	want := "after its last step (closing the engine, stopping a managed server) the device wrote 27.0 MB in 0.250 s, 31 flushes; charged to no step (run.json tail)"
	if got != want {
		t.Errorf("tail note %q\nwant      %q", got, want)
	}
	one := int64(1)
	if got := tailNote(&results.Tail{Seconds: 0.1, DevWKB: &wkb, DevFlushes: &one}); !strings.Contains(got, ", 1 flush;") {
		t.Errorf("one flush: %q", got)
	}
}
