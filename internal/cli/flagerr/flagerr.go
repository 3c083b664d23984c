// Package flagerr words the errors of flags the command line does not
// know: pflag's "unknown flag: --X" gains the flags X is a near miss of
// and where to look, and an unknown -v says what -v means in rumbench.
package flagerr

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"rumbench/internal/nearname"
)

// Explain adds to pflag's "unknown flag: --X" the visible flags of fs
// that X is a near miss of ("; did you mean --engine?") and the command's
// help (path: the command, "rumbench run"), and to an unknown -v where
// -v means what; other errors are returned as they are.
func Explain(err error, fs *pflag.FlagSet, path string) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		name, _, _ = strings.Cut(name, "=")
		if s := near(fs, name); len(s) > 0 {
			return fmt.Errorf("%s; did you mean --%s? (see `%s --help`)", msg, strings.Join(s, " or --"), path)
		}
		return fmt.Errorf("%s (see `%s --help`)", msg, path)
	}
	if strings.HasPrefix(msg, "unknown shorthand flag: 'v'") {
		return fmt.Errorf("%s: -v is --verbose, for rumbench engines and rumbench sweep; the version is rumbench --version", msg)
	}
	if strings.HasPrefix(msg, "unknown shorthand flag:") {
		return fmt.Errorf("%s (see `%s --help`)", msg, path)
	}
	return err
}

// near are the names of fs's visible flags that name is a near miss of
// (nearname.Near).
func near(fs *pflag.FlagSet, name string) []string {
	var names []string
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	return nearname.Near(name, names)
}
