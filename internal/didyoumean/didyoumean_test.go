package didyoumean

import (
	"slices"
	"testing"
)

func TestNear(t *testing.T) {
	flags := []string{"engine", "engine-opt", "interval", "out", "preset", "rows"}
	cases := []struct {
		name string
		want []string
	}{
		{"engin", []string{"engine"}},    // one edit
		{"engnie", []string{"engine"}},   // two edits
		{"interv", []string{"interval"}}, // only a prefix
		{"ou", []string{"out"}},          // a short name: distance only
		{"zzzzzz", nil},                  // nothing near
		{"rowz", []string{"rows"}},       // closest first
		{"row", []string{"rows"}},        // within 2 of rows only
		{"presets", []string{"preset"}},  // one too many
		{"engine-op", []string{"engine-opt"}},
	}
	for _, c := range cases {
		if got := Near(c.name, flags); !slices.Equal(got, c.want) {
			t.Errorf("Near(%q) = %v, want %v", c.name, got, c.want)
		}
	}
	if d := Distance("kitten", "sitting"); d != 3 {
		t.Errorf("Distance(kitten, sitting) = %d, want 3", d)
	}
}
