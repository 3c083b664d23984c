package report

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// mdSections splits a markdown report into its "## " and "### " sections,
// keyed by heading.
func mdSections(md string) map[string]string {
	out := map[string]string{}
	head := "preamble"
	var b strings.Builder
	for _, line := range strings.SplitAfter(md, "\n") {
		if strings.HasPrefix(line, "## ") || strings.HasPrefix(line, "### ") || strings.HasPrefix(line, "Legend:") {
			out[head] = b.String()
			b.Reset()
			head = strings.TrimSpace(line)
			continue
		}
		b.WriteString(line)
	}
	out[head] = b.String()
	return out
}

// TestVersion1BundleRendersAsBefore reads bundles written by the release
// before named operations (schema version 1: testdata/v1-release, from
// `rumbench run --engine pebble,sqlite --steps
// l.i0,l.x,l.i1,l.i2,qr100,qp100,scan` at commit fa33b84) and checks that
// the runs table and every step table, absolute and relative, are exactly
// what that release's `rumbench report` printed (testdata/golden/v1-release.md).
// Only the summary sections that became generic differ: the throughput
// summary's title, the stalls table (one row per stalled operation) and
// the legend.
func TestVersion1BundleRendersAsBefore(t *testing.T) {
	bs, err := Load([]string{"testdata/v1-release"})
	if err != nil {
		t.Fatal(err)
	}
	if v := bs[0].Run.SchemaVersion; v != 1 {
		t.Fatalf("fixture schema_version %d, want 1", v)
	}
	rep, err := Build(bs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.Markdown(&b); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/golden/v1-release.md")
	if err != nil {
		t.Fatal(err)
	}
	// Sizes became two columns: the footprint (the old size_bytes, read as
	// disk) and the engine's live size, new beside it.
	// A note per run says what the old size was; the rest is as before.
	var kept []string
	legacy, skipBlank := 0, false
	for _, line := range strings.SplitAfter(b.String(), "\n") {
		if strings.Contains(line, ": disk(GB) is this older bundle's size_bytes") {
			legacy, skipBlank = legacy+1, true
			continue
		}
		if skipBlank && line == "\n" {
			// The blank line that ends the notes' block.
			skipBlank = false
			continue
		}
		skipBlank = false
		kept = append(kept, line)
	}
	if legacy != 2 {
		t.Errorf("%d notes on the older bundles' size_bytes, want one per run (2)", legacy)
	}
	md := strings.ReplaceAll(dropColumn(strings.Join(kept, ""), "live(GB)"), "disk(GB)", "size(GB)")
	got, old := mdSections(md), mdSections(string(want))
	compared := 0
	for head, text := range old {
		if strings.HasPrefix(head, "## throughput summary") || strings.HasPrefix(head, "## stalls") || head == "Legend:" {
			continue
		}
		compared++
		if got[head] != text {
			t.Errorf("section %q differs from the version 1 report:\n--- got\n%s\n--- want\n%s", head, got[head], text)
		}
	}
	// runs, 7 steps × (absolute + relative), the preamble.
	if compared != 1+1+14 {
		t.Errorf("compared %d sections, want 16", compared)
	}
	// The throughput summary keeps its numbers.
	for _, line := range []string{"| #1 pebble |       812081 |       65835 |", "| #2 sqlite |       357562 |      345747 |"} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("throughput summary lacks %q", line)
		}
	}
}

// Runs whose settings that decide what is measured differ get a caveat
// under the tables; equal ones none.
func TestSettingCaveats(t *testing.T) {
	bs, err := Load([]string{"testdata/v1-release"})
	if err != nil {
		t.Fatal(err)
	}
	bs[0].Run.MeasuredSettings = map[string]string{"flush_on_commit": "no"}
	bs[1].Run.MeasuredSettings = map[string]string{"flush_on_commit": "no"}
	rep, err := Build(bs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Caveats) != 0 {
		t.Errorf("caveats for equal settings: %v", rep.Caveats)
	}
	bs[1].Run.MeasuredSettings = map[string]string{"flush_on_commit": "yes", "binlog": "on"}
	rep, err = Build(bs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.Markdown(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"CAVEAT: flush_on_commit differs between the runs (#1 pebble no, #2 sqlite yes)", "CAVEAT: binlog differs"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// dropColumn removes the column headed name from every markdown table in md.
func dropColumn(md, name string) string {
	var out strings.Builder
	col := -1
	for _, line := range strings.SplitAfter(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			col = -1
			out.WriteString(line)
			continue
		}
		cells := strings.Split(line, "|")
		if col < 0 {
			for i, c := range cells {
				if strings.TrimSpace(c) == name {
					col = i
				}
			}
		}
		if col > 0 && col < len(cells) {
			cells = append(cells[:col], cells[col+1:]...)
		}
		out.WriteString(strings.Join(cells, "|"))
	}
	return out.String()
}
