package flagnum

import (
	"testing"

	"github.com/spf13/pflag"
)

func TestWrap(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	n := fs.Int64("rows", 5, "")
	f := fs.Float64("ratio", 0.5, "")
	s := fs.String("name", "x", "")
	Wrap(fs)
	if got := fs.Lookup("rows").DefValue; got != "5" {
		t.Errorf("default %q changed", got)
	}
	for _, c := range []struct{ flag, value, err string }{
		{"rows", "1e6", ""}, {"rows", "2.5E5", ""}, {"rows", "1.5", "not a whole number: give digits (1000000) or a power-of-ten form (1e6)"},
		{"rows", "1e30", "out of range for this setting"}, {"rows", "99999999999999999999", "out of range for this setting"},
		{"ratio", "x", "not a number: give digits such as 10 or 0.5"}, {"ratio", "1e999", "out of range"}, {"name", "1e6", ""},
	} {
		err := fs.Lookup(c.flag).Value.Set(c.value)
		if (err == nil) != (c.err == "") || err != nil && err.Error() != c.err {
			t.Errorf("--%s %s: %v, want %q", c.flag, c.value, err, c.err)
		}
	}
	fs.Set("rows", "2.5e5")
	fs.Set("ratio", "0.25")
	if *n != 250000 || *f != 0.25 || *s != "1e6" {
		t.Errorf("values %d %g %q", *n, *f, *s)
	}
}
