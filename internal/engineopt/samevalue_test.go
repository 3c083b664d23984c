package engineopt

import "testing"

// Two spellings of one value are the same setting: sizes, booleans and
// numbers by what they mean, names by case.
func TestSameValue(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"256MB", "268435456", true},
		{"64mb", "64MiB", true},
		{"on", "true", true},
		{"1", "true", true},
		{"0", "false", true},
		{"0.9", "0.5", false},
		{"0.9", "0.90", true},
		{"1", "1024", false},
		{"Snappy", "snappy", true},
		{"zstd", "snappy", false},
		{"", "0", false},
	} {
		if got := SameValue(c.a, c.b); got != c.same {
			t.Errorf("SameValue(%q, %q) = %v, want %v", c.a, c.b, got, c.same)
		}
	}
}
