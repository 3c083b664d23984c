package nearname

import (
	"reflect"
	"testing"
)

func TestNear(t *testing.T) {
	names := []string{"engine", "engine-opt", "clients", "rows", "rows-per-commit", "out", "interval"}
	for name, want := range map[string][]string{
		"engin":    {"engine"},
		"row":      {"rows"},
		"rowsp":    {"rows"},
		"rows-p":   {"rows"},
		"rows-per": {"rows-per-commit"},
		"xyzzy":    nil,
		"inter":    {"interval"},
	} {
		if got := Near(name, names); !reflect.DeepEqual(got, want) {
			t.Errorf("Near(%q) = %q, want %q", name, got, want)
		}
	}
	if d := Distance("kitten", "sitting"); d != 3 {
		t.Errorf("Distance = %d, want 3", d)
	}
}
