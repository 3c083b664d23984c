package flagerr

import (
	"errors"
	"testing"

	"github.com/spf13/pflag"
)

func TestExplain(t *testing.T) {
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	fs.String("engine", "", "")
	fs.String("engines-secret", "", "")
	fs.Lookup("engines-secret").Hidden = true
	for _, c := range []struct{ in, want string }{
		{"unknown flag: --engin", "unknown flag: --engin; did you mean --engine? (see `rumbench run --help`)"},
		{"unknown flag: --engin=x", "unknown flag: --engin=x; did you mean --engine? (see `rumbench run --help`)"},
		{"unknown flag: --zzz", "unknown flag: --zzz (see `rumbench run --help`)"},
		{"unknown shorthand flag: 'v' in -v", "unknown shorthand flag: 'v' in -v: -v is --verbose, for rumbench engines and rumbench sweep; the version is rumbench --version"},
		{"unknown shorthand flag: 'x' in -x", "unknown shorthand flag: 'x' in -x (see `rumbench run --help`)"},
		{"invalid argument", "invalid argument"},
	} {
		if got := Explain(errors.New(c.in), fs, "rumbench run").Error(); got != c.want {
			t.Errorf("%q: got %q, want %q", c.in, got, c.want)
		}
	}
}
