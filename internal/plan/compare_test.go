package plan

import (
	"strings"
	"testing"
)

// Groups pair by engine; one engine each pairs whatever the names.
func TestCompare(t *testing.T) {
	reps, err := Compare([]string{"../report/testdata/run1", "../report/testdata/v1-release"}, "md", "", 1)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range reps {
		got = append(got, r.Runs[0].Label+" | "+r.Runs[1].Label)
	}
	if len(reps) != 2 || !strings.HasPrefix(got[0], "OLD ") || !strings.Contains(got[0], "| NEW ") {
		t.Errorf("pairs %q: want two, OLD and NEW", got)
	}
	for _, r := range reps {
		if a, b := r.Runs[0].Bundle.Run.Engine.Name, r.Runs[1].Bundle.Run.Engine.Name; a != b {
			t.Errorf("paired %s with %s", a, b)
		}
	}
	// pebble-small holds one engine, run1 two: pebble with pebble only.
	if reps, err = Compare([]string{"../report/testdata/pebble-small", "../report/testdata/run1"}, "json", "", 1); err != nil || len(reps) != 1 {
		t.Errorf("one engine against two: %d reports, %v", len(reps), err)
	}
	for _, c := range []struct {
		dirs         []string
		format, html string
		base         int
		want         string
	}{
		{[]string{"a"}, "md", "", 1, "--compare takes two result dirs, OLD and NEW; got 1"},
		{[]string{"a", "b"}, "csv", "", 1, "--compare prints markdown or --format json only"},
		{[]string{"a", "b"}, "md", "x.html", 1, "--compare prints markdown or --format json only"},
		{[]string{"a", "b"}, "md", "", 2, "--compare prints markdown or --format json only"},
	} {
		if _, err := Compare(c.dirs, c.format, c.html, c.base); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c, err, c.want)
		}
	}
}
